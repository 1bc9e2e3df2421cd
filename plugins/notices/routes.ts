/**
 * The notice routes (bearer token): the feed, the unread count, marking as read, and the caller's
 * notification level. A notice is only ever visible to its recipient, and only while the feed
 * shows it (its target still exists and the recipient may open it); anyone else, and the
 * recipient otherwise, gets the same 404 as for a notice that does not exist.
 */
import type { Hono } from 'hono';
import { z } from 'zod';
import type { Clock } from '../../kernel/clock.ts';
import { notFound } from '../../kernel/errors.ts';
import { lockCaller } from '../../kernel/identity/users.ts';
import type { KernelEnv } from '../../kernel/plugin.ts';
import { jsonBody, validate } from '../../kernel/http/validate.ts';
import { countUnread, feedQuery, readFeed, visibleNotices } from './feed.ts';
import { toNoticeRecords } from './records.ts';
import {
  NOTIFICATION_LEVELS,
  noticesTable,
  notificationSettingsTable,
  type NotificationLevel,
} from './tables.ts';
import { pathId } from '../../kernel/http/params.ts';

const NOT_FOUND = 'Notice not found';
/** What a user who never chose a level has: everything, since the epoch. */
const DEFAULT_SETTINGS = {
  level: 'all' as NotificationLevel,
  updatedAt: '1970-01-01T00:00:00.000Z',
};

const settingsBody = z.object({
  level: z.enum(NOTIFICATION_LEVELS, { error: `must be one of ${NOTIFICATION_LEVELS.join(', ')}` }),
});

export interface NoticeRouteDeps {
  clock: Clock;
  /** Whether the hub is in E2EE mode now (no comment previews then); read per request. */
  e2ee(): boolean;
}

export function noticeRoutes(app: Hono<KernelEnv>, deps: NoticeRouteDeps): void {
  app.get('/notices', validate('query', feedQuery), async (c) => {
    const { cursor, limit } = c.req.valid('query');
    const page = await readFeed(c.get('store'), c.get('auth').user, limit, cursor);
    const notices = await toNoticeRecords(c.get('store'), page.rows, deps.e2ee());
    return c.json(page.nextCursor ? { notices, nextCursor: page.nextCursor } : { notices });
  });

  app.get('/notices/unread-count', async (c) => {
    return c.json({ count: await countUnread(c.get('store'), c.get('auth').user) });
  });

  app.post('/notices/read-all', async (c) => {
    const store = c.get('store');
    const count = await store
      .table(noticesTable)
      .updateWhere(
        { recipientUserId: c.get('auth').user.id, readAt: null },
        { readAt: deps.clock.iso() },
      );
    return c.json({ count });
  });

  app.post('/notices/:id/read', async (c) => {
    const id = pathId(c, 'id', NOT_FOUND);
    const notices = c.get('store').table(noticesTable);
    const user = c.get('auth').user;
    let row = await notices.get(id);
    if (!row || row.recipientUserId !== user.id) throw notFound(NOT_FOUND);
    // The feed's filter: a notice it hides (target gone or out of reach) tells nothing here either.
    if ((await visibleNotices(c.get('store'), user, [row])).length === 0) throw notFound(NOT_FOUND);
    // Marking twice keeps the first time it was read.
    if (row.readAt === null) row = (await notices.update(id, { readAt: deps.clock.iso() })) ?? row;
    const [record] = await toNoticeRecords(c.get('store'), [row], deps.e2ee());
    return c.json(record);
  });

  app.get('/me/notification-settings', async (c) => {
    const row = await c.get('store').table(notificationSettingsTable).get(c.get('auth').user.id);
    return c.json(row ? { level: row.level, updatedAt: row.updatedAt } : DEFAULT_SETTINGS);
  });

  app.put('/me/notification-settings', jsonBody(settingsBody), async (c) => {
    const { level } = c.req.valid('json');
    // Under the caller's row lock, so the settings cannot outlive a deletion running meanwhile.
    const row = await c.get('store').transaction(async (tx) => {
      await lockCaller(tx, c.get('auth').user.id);
      return tx
        .table(notificationSettingsTable)
        .put({ id: c.get('auth').user.id, level, updatedAt: deps.clock.iso() });
    });
    return c.json({ level: row.level, updatedAt: row.updatedAt });
  });
}
