/**
 * Paging through a target's comments, oldest first. The cursor is the shared keyset cursor of the
 * last row's (createdAt, id) and pages use the storage keyset `after`, so a page never repeats or
 * skips a row, even when many comments share one millisecond or new comments arrive between pages.
 */
import { z } from 'zod';
import type { Store } from '../../kernel/storage/contract.ts';
import {
  cursorQuery,
  encodeCursor,
  limitQuery,
  type KeysetPosition,
} from '../../kernel/http/paging.ts';
import { commentsTable, type CommentRow } from './tables.ts';
import { type TargetType } from '../entities/index.ts';

export const DEFAULT_LIMIT = 50;

/** The list query; repeated keys, non-integers and bad cursors are 400s that name the field. */
export const listQuery = z.object({
  limit: limitQuery(DEFAULT_LIMIT),
  cursor: cursorQuery('discussion list'),
});

const ORDER = [
  ['createdAt', 'asc'],
  ['id', 'asc'],
] as const;

/** One page of a target's comments and the cursor of the next page, when there is one. */
export async function listPage(
  store: Store,
  entityType: TargetType,
  entityId: string,
  options: { limit?: number | undefined; cursor?: KeysetPosition | undefined },
): Promise<{ rows: CommentRow[]; nextCursor?: string }> {
  const limit = options.limit ?? DEFAULT_LIMIT;
  const after = options.cursor;
  // One row more than the page tells whether another page exists, without a count query.
  const rows = await store.table(commentsTable).find({
    where: { entityType, entityId },
    orderBy: ORDER,
    limit: limit + 1,
    ...(after ? { after } : {}),
  });
  if (rows.length <= limit) return { rows };
  const page = rows.slice(0, limit);
  return { rows: page, nextCursor: encodeCursor(page[page.length - 1]!) };
}
