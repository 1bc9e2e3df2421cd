/**
 * The notice feed: newest first by (createdAt, id), paged with an opaque keyset cursor, showing only
 * notices whose target the reader can still open. Access is checked against the target as it is
 * now (a request moved to another collection follows its new collection; a deleted target hides
 * its notices), and the feed keeps reading until a page is full, so a page is short only at the end.
 */
import { z } from 'zod';
import type { UserRow } from '../../kernel/identity/tables.ts';
import type { Store } from '../../kernel/storage/contract.ts';
import type { DiscussionEntityType } from '../discussions/tables.ts';
import { canAccessTarget, type DiscussionTarget } from '../discussions/targets.ts';
import { collectionsTable, foldersTable, requestsTable, runResultsTable } from '../entities/tables.ts';
import { noticesTable, type NoticeRow } from './tables.ts';

export const DEFAULT_PAGE_SIZE = 50;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

interface CursorPosition {
  createdAt: string;
  id: string;
}

/** base64url of `[createdAt, id]`: opaque to clients, so its layout may change. */
export function encodeCursor(row: CursorPosition): string {
  return Buffer.from(JSON.stringify([row.createdAt, row.id]), 'utf8').toString('base64url');
}

/** Decodes a cursor, or null when it is not one this hub issued. */
export function decodeCursor(cursor: string): CursorPosition | null {
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(cursor)) return null;
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (!Array.isArray(value) || value.length !== 2) return null;
    const [createdAt, id] = value as unknown[];
    if (typeof createdAt !== 'string' || !ISO.test(createdAt) || Number.isNaN(Date.parse(createdAt))) return null;
    if (typeof id !== 'string' || id.length === 0 || id.length > 128) return null;
    return { createdAt, id };
  } catch {
    return null;
  }
}

/** `GET /notices` query: a bad limit or cursor is a 400 naming the field. */
export const feedQuery = z.object({
  cursor: z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === '') return undefined;
      const position = decodeCursor(value);
      if (!position) ctx.addIssue({ code: 'custom', message: 'Invalid notice list cursor' });
      return position ?? undefined;
    }),
  limit: z.coerce.number().int().min(1).max(100).default(DEFAULT_PAGE_SIZE),
});

const TARGET_TABLES = { collection: collectionsTable, folder: foldersTable, request: requestsTable, runResult: runResultsTable } as const;

/** Which of these notices' targets the user may open now, by `entityType:entityId`. */
async function accessibleTargets(store: Store, user: UserRow, rows: readonly NoticeRow[]): Promise<Set<string>> {
  const allowed = new Set<string>();
  for (const entityType of Object.keys(TARGET_TABLES) as DiscussionEntityType[]) {
    const ids = [...new Set(rows.filter((row) => row.entityType === entityType).map((row) => row.entityId))];
    if (ids.length === 0) continue;
    const entities = (await store.table(TARGET_TABLES[entityType]).getMany(ids)) as {
      id: string; collectionId?: string | null; createdByUserId: string | null;
    }[];
    for (const entity of entities) {
      // Only the fields canAccessTarget reads matter; the rest of the target is not needed here.
      const target = {
        entityType, entityId: entity.id,
        collectionId: entityType === 'collection' ? entity.id : (entity.collectionId ?? null),
        creatorUserId: entity.createdByUserId,
      } as DiscussionTarget;
      if (canAccessTarget(user, target)) allowed.add(`${entityType}:${entity.id}`);
    }
  }
  return allowed;
}

export interface FeedPage {
  rows: NoticeRow[];
  nextCursor?: string;
}

/** One page of the user's feed after `after`, filled with accessible notices only. */
export async function readFeed(store: Store, user: UserRow, limit: number, after?: CursorPosition): Promise<FeedPage> {
  const notices = store.table(noticesTable);
  const page: NoticeRow[] = [];
  // Read in batches a little larger than the page, so one batch usually suffices even when a few
  // notices are hidden; one extra accessible row tells whether another page exists.
  const batch = Math.min(Math.max(limit * 2, 20), 500);
  let position = after;
  for (;;) {
    const rows = await notices.find({
      where: { recipientUserId: user.id },
      orderBy: [['createdAt', 'desc'], ['id', 'desc']],
      limit: batch,
      ...(position ? { after: position } : {}),
    });
    const allowed = await accessibleTargets(store, user, rows);
    for (const row of rows) {
      if (!allowed.has(`${row.entityType}:${row.entityId}`)) continue;
      if (page.length === limit) return { rows: page, nextCursor: encodeCursor(page[page.length - 1]!) };
      page.push(row);
    }
    if (rows.length < batch) return { rows: page };
    const last = rows[rows.length - 1]!;
    position = { createdAt: last.createdAt, id: last.id };
  }
}
