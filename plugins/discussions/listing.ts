/**
 * Paging through a target's comments, oldest first. The cursor is an opaque base64url of the last
 * row's (createdAt, id) and pages use the storage keyset `after`, so a page never repeats or skips a
 * row, even when many comments share one millisecond or new comments arrive between pages.
 */
import { Buffer } from 'node:buffer';
import { z } from 'zod';
import { badRequest } from '../../kernel/errors.ts';
import type { Store } from '../../kernel/storage/contract.ts';
import { ID_MAX } from '../entities/schemas.ts';
import { commentsTable, type CommentRow, type DiscussionEntityType } from './tables.ts';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 100;
const INVALID_CURSOR = 'cursor: Invalid discussion list cursor';
/** Far longer than any cursor the hub issues; longer input is refused before decoding. */
const CURSOR_MAX = 512;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

const LIMIT_MESSAGE = `must be an integer from 1 to ${MAX_LIMIT}`;

/** The list query; repeated keys and non-integers are 400s that name the field. */
export const listQuery = z.object({
  limit: z
    .string({ error: LIMIT_MESSAGE })
    .regex(/^\d{1,3}$/, LIMIT_MESSAGE)
    .transform(Number)
    .refine((value) => value >= 1 && value <= MAX_LIMIT, LIMIT_MESSAGE)
    .optional(),
  cursor: z.string({ error: 'must be a single string' }).optional(),
});

const ORDER = [['createdAt', 'asc'], ['id', 'asc']] as const;

type Position = Pick<CommentRow, 'createdAt' | 'id'>;

/** The cursor for the page after `row`. */
export function encodeCursor(row: Position): string {
  return Buffer.from(`${row.createdAt}|${row.id}`, 'utf8').toString('base64url');
}

/** The position a cursor names; 400 for anything the hub could not have issued. */
export function decodeCursor(cursor: string): Position {
  if (cursor.length === 0 || cursor.length > CURSOR_MAX || !BASE64URL.test(cursor)) throw badRequest(INVALID_CURSOR);
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const bar = text.indexOf('|');
  const createdAt = text.slice(0, bar);
  const id = text.slice(bar + 1);
  if (bar < 0 || !ISO.test(createdAt) || Number.isNaN(Date.parse(createdAt))) throw badRequest(INVALID_CURSOR);
  if (!id || id.length > ID_MAX || id.includes('\u0000') || id.includes('\uFFFD')) throw badRequest(INVALID_CURSOR);
  // Normalizes e.g. a 30th of February, which Date.parse rolls over instead of refusing.
  if (new Date(createdAt).toISOString() !== createdAt) throw badRequest(INVALID_CURSOR);
  return { createdAt, id };
}

/** One page of a target's comments and the cursor of the next page, when there is one. */
export async function listPage(
  store: Store,
  entityType: DiscussionEntityType,
  entityId: string,
  options: { limit?: number | undefined; cursor?: string | undefined },
): Promise<{ rows: CommentRow[]; nextCursor?: string }> {
  const limit = options.limit ?? DEFAULT_LIMIT;
  const after = options.cursor === undefined ? undefined : decodeCursor(options.cursor);
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
