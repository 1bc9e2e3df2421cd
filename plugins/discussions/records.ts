/**
 * The comment record clients read. Authors are resolved from the users table at read time, so a
 * renamed user or a new avatar shows up on old comments, and a deleted account reads as
 * `Unknown user` without an avatar. On E2EE hubs no plaintext ever leaves the hub, even for comments
 * written before E2EE was switched on.
 */
import { usersById } from '../../kernel/identity/users.ts';
import type { UserRow } from '../../kernel/identity/tables.ts';
import type { Store } from '../../kernel/storage/contract.ts';
import { toEncryptedPayload } from './payload.ts';
import type { CommentRow } from './tables.ts';
import { userPresentation, type UserPresentation } from '../avatars/index.ts';

export const COMMENT_NOT_FOUND = 'Discussion comment not found';
export const UNKNOWN_USER = 'Unknown user';

export interface CommentRecord {
  id: string;
  entityType: string;
  entityId: string;
  parentCommentId: string | null;
  rootCommentId: string;
  depth: number;
  body: string | null;
  bodyFormat: string;
  encryptedPayload: Record<string, unknown> | null;
  author: UserPresentation;
  createdAt: string;
  updatedAt: string;
  tombstoned: boolean;
}

/** Loads the authors of `rows` in one query. */
export function loadAuthors(
  store: Store,
  rows: readonly CommentRow[],
): Promise<Map<string, UserRow>> {
  return usersById(
    store,
    rows.map((row) => row.authorUserId),
  );
}

/** The API record of a comment; `e2ee` is the hub mode of the current request. */
export function toCommentRecord(
  row: CommentRow,
  authors: ReadonlyMap<string, UserRow>,
  e2ee: boolean,
): CommentRecord {
  const tombstoned = row.tombstonedAt !== null;
  const encrypted = row.bodyFormat === 'encrypted';
  return {
    id: row.id,
    entityType: row.entityType,
    entityId: row.entityId,
    parentCommentId: row.parentCommentId,
    rootCommentId: row.rootCommentId,
    depth: row.depth,
    body: tombstoned || encrypted || e2ee ? null : row.body,
    bodyFormat: row.bodyFormat,
    encryptedPayload:
      encrypted && !tombstoned ? toEncryptedPayload(row.body, row.bodyMetadata) : null,
    author: userPresentation(
      row.authorUserId,
      row.authorUserId ? authors.get(row.authorUserId) : undefined,
      UNKNOWN_USER,
    ),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    tombstoned,
  };
}

/** One record, loading its author. */
export async function recordOf(
  store: Store,
  row: CommentRow,
  e2ee: boolean,
): Promise<CommentRecord> {
  return toCommentRecord(row, await loadAuthors(store, [row]), e2ee);
}
