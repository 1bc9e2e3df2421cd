/**
 * The comment record clients read. Authors are resolved from the users table at read time, so a
 * renamed user or a new avatar shows up on old comments, and a deleted account reads as
 * `Unknown user` without an avatar. On E2EE hubs no plaintext ever leaves the hub, even for comments
 * written before E2EE was switched on.
 */
import { userAvatarUrl } from '../../kernel/identity/users.ts';
import { usersTable, type UserRow } from '../../kernel/identity/tables.ts';
import type { Store } from '../../kernel/storage/contract.ts';
import { toEncryptedPayload } from './payload.ts';
import type { CommentRow } from './tables.ts';

export const COMMENT_NOT_FOUND = 'Discussion comment not found';
export const UNKNOWN_USER = 'Unknown user';

export interface CommentAuthor {
  id: string;
  name: string;
  avatar?: { initials: string; color: string; imageUrl?: string };
}

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
  author: CommentAuthor;
  createdAt: string;
  updatedAt: string;
  tombstoned: boolean;
}

/** The author object of a user row, or the placeholder when the account is gone. */
export function toAuthor(id: string | null, user: UserRow | undefined): CommentAuthor {
  if (!user) return { id: id ?? '', name: UNKNOWN_USER };
  const imageUrl = userAvatarUrl(user);
  return {
    id: user.id,
    name: user.name,
    avatar: {
      initials: user.avatarInitials,
      color: user.avatarColor,
      ...(imageUrl ? { imageUrl } : {}),
    },
  };
}

/** Loads the authors of `rows` in one query. */
export async function loadAuthors(
  store: Store,
  rows: readonly CommentRow[],
): Promise<Map<string, UserRow>> {
  const ids = [
    ...new Set(rows.map((row) => row.authorUserId).filter((id): id is string => id !== null)),
  ];
  if (ids.length === 0) return new Map();
  const users = await store.table(usersTable).getMany(ids);
  return new Map(users.map((user) => [user.id, user]));
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
    author: toAuthor(
      row.authorUserId,
      row.authorUserId ? authors.get(row.authorUserId) : undefined,
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
