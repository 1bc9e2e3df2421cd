/**
 * Reading the log, newest first, for `GET /admin/audit`, `workspace-hub audit list` and `export`:
 * filters on actor, action, target and time, keyset pages on (at, id). `until` becomes a keyset
 * bound (every row before the millisecond after it), so one range condition on `at` (`since`)
 * suffices on every driver.
 */
import { z } from 'zod';
import { parseIsoTime } from '../../kernel/clock.ts';
import type { Store } from '../../kernel/storage/contract.ts';
import {
  cursorQuery,
  encodeCursor,
  limitQuery,
  type KeysetPosition,
} from '../../kernel/http/paging.ts';
import type { Where } from '../../kernel/storage/contract.ts';
import { ID_MAX } from '../../kernel/http/params.ts';
import { auditEventsTable, type AuditEventRow } from './tables.ts';

export const DEFAULT_LIMIT = 50;

const TIME_MESSAGE = 'must be an ISO 8601 date-time, e.g. 2026-01-02T03:04:05Z';

const time = z
  .string({ error: 'must be a single string' })
  .optional()
  .transform((value, ctx) => {
    if (value === undefined) return undefined;
    const parsed = parseIsoTime(value);
    if (parsed === null) {
      ctx.addIssue({ code: 'custom', message: TIME_MESSAGE });
      return z.NEVER;
    }
    return parsed;
  });

const filterText = (max: number) =>
  z
    .string({ error: 'must be a single string' })
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    .refine((value) => !value.includes('\u0000'), 'must not contain NUL characters')
    .optional();

/** The query of `GET /admin/audit`; each bad field is a 400 that names it. */
export const auditQuery = z.object({
  actorId: filterText(ID_MAX),
  action: filterText(64),
  targetId: filterText(255),
  since: time,
  until: time,
  cursor: cursorQuery('audit'),
  limit: limitQuery(DEFAULT_LIMIT),
});

export interface AuditFilter {
  actorId?: string | undefined;
  action?: string | undefined;
  targetId?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
  cursor?: KeysetPosition | undefined;
  limit: number;
}

const ORDER = [
  ['at', 'desc'],
  ['id', 'desc'],
] as const;

/** The later of two positions in a newest-first order is the one that lets fewer rows through. */
function tighter(a: KeysetPosition | undefined, b: KeysetPosition | undefined) {
  if (!a || !b) return a ?? b;
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? a : b;
  return a.id < b.id ? a : b;
}

/** One page of events and the cursor of the next one, when there is one. */
export async function auditPage(
  store: Store,
  filter: AuditFilter,
): Promise<{ rows: AuditEventRow[]; nextCursor?: string }> {
  const where: Where<AuditEventRow> = {};
  if (filter.actorId !== undefined) where.actorId = filter.actorId;
  if (filter.action !== undefined) where.action = filter.action;
  if (filter.targetId !== undefined) where.targetId = filter.targetId;
  if (filter.since !== undefined) where.at = { gte: filter.since };
  // Rows at or before `until`: strictly older than (until + 1 ms, ''), as no id is empty.
  const until =
    filter.until === undefined
      ? undefined
      : { createdAt: new Date(Date.parse(filter.until) + 1).toISOString(), id: '' };
  const position = tighter(filter.cursor, until);
  const rows = await store.table(auditEventsTable).find({
    where,
    orderBy: ORDER,
    limit: filter.limit + 1,
    ...(position ? { after: { at: position.createdAt, id: position.id } } : {}),
  });
  if (rows.length <= filter.limit) return { rows };
  const page = rows.slice(0, filter.limit);
  const last = page[page.length - 1]!;
  return { rows: page, nextCursor: encodeCursor({ createdAt: last.at, id: last.id }) };
}
