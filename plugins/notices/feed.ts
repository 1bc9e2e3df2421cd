/**
 * The notice feed: newest first by (createdAt, id), paged with an opaque keyset cursor, showing only
 * notices whose target the reader can still open. Access is checked against the target as it is
 * now (a request moved to another collection follows its new collection; a deleted target hides
 * its notices), and the feed keeps reading until a page is full, so a page is short only at the end
 * or when a request has read its bounded number of batches (it then still carries a cursor). Only
 * rows the filter could let through are read at all (feed-scope.ts): notices about collections the
 * reader lost cost nothing.
 */
import { z } from 'zod';
import type { UserRow } from '../../kernel/identity/tables.ts';
import type { Store, Where } from '../../kernel/storage/contract.ts';
import {
  cursorQuery,
  encodeCursor,
  encodeTimeCursor,
  limitQuery,
  type KeysetPosition,
} from '../../kernel/http/paging.ts';
import { noticesTable, type NoticeRow } from './tables.ts';
import { FEED_ORDER, feedScope, findInScope } from './feed-scope.ts';
import {
  canAccessTarget,
  targetTables,
  type EntityTarget,
  type TargetType,
} from '../entities/index.ts';

export const DEFAULT_PAGE_SIZE = 50;
/**
 * Batches one request reads at most while skipping notices the reader can no longer open; after
 * that the page is returned as it is, with a cursor after the last row read, so a feed full of
 * hidden notices costs several short requests instead of one unbounded scan.
 */
export const MAX_BATCHES_PER_PAGE = 20;

/** `GET /notices` query: a bad limit or cursor is a 400 naming the field; `cursor=` is the first page. */
export const feedQuery = z.object({
  cursor: cursorQuery('notice list', { emptyIsAbsent: true, timeOnly: true }),
  limit: limitQuery(DEFAULT_PAGE_SIZE),
});

/** Which of these notices' targets the user may open now, by `entityType:entityId`. */
async function accessibleTargets(
  store: Store,
  user: UserRow,
  rows: readonly NoticeRow[],
): Promise<Set<string>> {
  const allowed = new Set<string>();
  for (const entityType of Object.keys(targetTables) as TargetType[]) {
    const ids = [
      ...new Set(rows.filter((row) => row.entityType === entityType).map((row) => row.entityId)),
    ];
    if (ids.length === 0) continue;
    const entities = (await store.table(targetTables[entityType]).getMany(ids)) as {
      id: string;
      collectionId?: string | null;
      createdByUserId: string | null;
    }[];
    for (const entity of entities) {
      // Only the fields canAccessTarget reads matter; the rest of the target is not needed here.
      const target = {
        entityType,
        entityId: entity.id,
        collectionId: entityType === 'collection' ? entity.id : (entity.collectionId ?? null),
        creatorUserId: entity.createdByUserId,
      } as EntityTarget;
      if (canAccessTarget(user, target)) allowed.add(`${entityType}:${entity.id}`);
    }
  }
  return allowed;
}

export interface FeedPage {
  rows: NoticeRow[];
  nextCursor?: string;
}

/**
 * One page of the user's feed after `after`, with accessible notices only. The page is full unless
 * the feed ends or MAX_BATCHES_PER_PAGE batches were read. A cursor never names a notice the
 * reader cannot see: after a full page it is the last notice on it; when the batches ran out it
 * names only a time (the rest of the last row's millisecond is read first), since the last row
 * read may be one the reader lost access to. The page may then be short, or even empty.
 */
export async function readFeed(
  store: Store,
  user: UserRow,
  limit: number,
  after?: KeysetPosition,
): Promise<FeedPage> {
  const notices = store.table(noticesTable);
  const page: NoticeRow[] = [];
  // Read in batches a little larger than the page, so one batch usually suffices even when a few
  // notices are hidden; one extra accessible row tells whether another page exists.
  const batch = Math.min(Math.max(limit * 2, 20), 500);
  /** Adds the visible rows; true once a visible row is found beyond a full page. */
  const take = async (rows: readonly NoticeRow[]): Promise<boolean> => {
    const allowed = await accessibleTargets(store, user, rows);
    for (const row of rows) {
      if (!allowed.has(`${row.entityType}:${row.entityId}`)) continue;
      if (page.length === limit) return true;
      page.push(row);
    }
    return false;
  };
  const full = (): FeedPage => ({ rows: page, nextCursor: encodeCursor(page[page.length - 1]!) });
  // Only the rows the access filter could let through are read (feed-scope.ts).
  const scope = feedScope(user);
  // A time-only cursor (empty id) continues with everything older than its time.
  let where: Where<NoticeRow> = {};
  let position: KeysetPosition | undefined = after;
  if (after && after.id === '') {
    where = { createdAt: { lt: after.createdAt } };
    position = undefined;
  }
  let last: NoticeRow;
  for (let batches = 1; ; batches++) {
    const rows = await findInScope(notices, scope, where, batch, position);
    if (await take(rows)) return full();
    if (rows.length < batch) return { rows: page };
    last = rows[rows.length - 1]!;
    where = {};
    position = { createdAt: last.createdAt, id: last.id };
    if (batches >= MAX_BATCHES_PER_PAGE) break;
  }
  // Out of batches. The rest of the last row's millisecond is read too (rarely more than a few
  // rows), so the cursor can name that time alone instead of the last row, which may be hidden.
  for (;;) {
    const rows = await findInScope(notices, scope, { createdAt: last.createdAt }, batch, {
      createdAt: last.createdAt,
      id: last.id,
    });
    if (await take(rows)) return full();
    if (rows.length < batch) return { rows: page, nextCursor: encodeTimeCursor(last.createdAt) };
    last = rows[rows.length - 1]!;
  }
}

/**
 * The rows among these that the user may open now: what the feed would show of them (for a
 * single notice read outside the feed).
 */
export async function visibleNotices(
  store: Store,
  user: UserRow,
  rows: readonly NoticeRow[],
): Promise<NoticeRow[]> {
  const allowed = await accessibleTargets(store, user, rows);
  return rows.filter((row) => allowed.has(`${row.entityType}:${row.entityId}`));
}

/** Unread notices read per batch by {@link countUnread}. */
const UNREAD_BATCH = 500;

/**
 * How many unread notices the user could open in the feed right now: the feed's access filter
 * applied to the unread ones, so a notice about a collection the user lost access to (or a
 * target that is gone) is not counted while the feed hides it. Each condition of the feed's scope
 * is walked on its own (a count needs no merged order); a notice two of them hold (a run result in
 * a listed collection) counts once.
 */
export async function countUnread(store: Store, user: UserRow): Promise<number> {
  const notices = store.table(noticesTable);
  const counted = new Set<string>();
  for (const where of feedScope(user)) {
    let position: KeysetPosition | undefined;
    for (;;) {
      const rows = await notices.find({
        where: { ...where, readAt: null },
        orderBy: FEED_ORDER,
        limit: UNREAD_BATCH,
        ...(position ? { after: position } : {}),
      });
      const fresh = rows.filter((row) => !counted.has(row.id));
      const allowed = await accessibleTargets(store, user, fresh);
      for (const row of fresh)
        if (allowed.has(`${row.entityType}:${row.entityId}`)) counted.add(row.id);
      if (rows.length < UNREAD_BATCH) break;
      const last = rows[rows.length - 1]!;
      position = { createdAt: last.createdAt, id: last.id };
    }
  }
  return counted.size;
}
