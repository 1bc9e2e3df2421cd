/**
 * Which of a user's notice rows the feed needs to read at all. The feed's access filter
 * (feed.ts) decides on the target as it is now; a notice row carries its target's collection id,
 * kept current when a request moves to another collection (`entities.item.moved`, in the move's
 * transaction), so a reader limited to some collections never needs the rows of the others. The
 * scope is the union of a few indexed conditions that together hold every notice the user could
 * open; the access filter still runs on what they return, so results are exactly those of the
 * filter alone, while notices about collections the user lost are never read, listed or counted.
 *
 * - An admin, or a user with every collection (`*`), reads all their notices: one condition.
 * - Otherwise one condition per collection on the user's list (each served in feed order by the
 *   index (recipientUserId, collectionId, createdAt, id); above {@link MAX_COLLECTION_STREAMS} one
 *   `in` condition), plus every run-result notice, since the creator of a run result reads it
 *   whatever their collections are (index (recipientUserId, entityType, createdAt, id)).
 */
import { WILDCARD } from '../../kernel/identity/access.ts';
import type { UserRow } from '../../kernel/identity/tables.ts';
import type { KeysetPosition } from '../../kernel/http/paging.ts';
import type { TableApi, Where } from '../../kernel/storage/contract.ts';
import { COLLECTION_ACCESS } from '../entities/index.ts';
import type { NoticeRow } from './tables.ts';

/** Collections read as separate ordered queries at most; longer lists go in one `in` query. */
export const MAX_COLLECTION_STREAMS = 8;

/** The user's notices in feed order, newest first; ties on `createdAt` go by id. */
export const FEED_ORDER = [
  ['createdAt', 'desc'],
  ['id', 'desc'],
] as const;

/** Conditions whose union holds every notice of the user that the access filter could let through. */
export function feedScope(user: UserRow): Where<NoticeRow>[] {
  const mine = { recipientUserId: user.id };
  const list = user[COLLECTION_ACCESS];
  if (user.role === 'admin' || list.includes(WILDCARD)) return [mine];
  const collections = [...new Set(list)];
  const byCollection: Where<NoticeRow>[] =
    collections.length === 0
      ? []
      : collections.length <= MAX_COLLECTION_STREAMS
        ? collections.map((collectionId) => ({ ...mine, collectionId }))
        : [{ ...mine, collectionId: { in: collections } }];
  return [...byCollection, { ...mine, entityType: 'runResult' }];
}

/** Feed order as a comparison: newest first, then by id descending. */
function newestFirst(a: NoticeRow, b: NoticeRow): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/**
 * The first `limit` rows, in feed order after `after`, of the union of the scope's conditions
 * (each joined with `extra`): what one `find` over the union would give. Each condition gives its
 * own first `limit` rows, which hold every row of the union's first `limit`.
 */
export async function findInScope(
  notices: TableApi<NoticeRow>,
  scope: readonly Where<NoticeRow>[],
  extra: Where<NoticeRow>,
  limit: number,
  after?: KeysetPosition,
): Promise<NoticeRow[]> {
  const lists = await Promise.all(
    scope.map((where) =>
      notices.find({
        where: { ...where, ...extra },
        orderBy: FEED_ORDER,
        limit,
        ...(after ? { after } : {}),
      }),
    ),
  );
  if (lists.length === 1) return lists[0]!;
  const byId = new Map<string, NoticeRow>();
  for (const row of lists.flat()) byId.set(row.id, row);
  return [...byId.values()].sort(newestFirst).slice(0, limit);
}
