import type { Store } from '../../kernel/storage/contract.ts';
import { type EntityTarget } from '../entities/index.ts';
import { commentsTable } from './tables.ts';
/**
 * The events the `discussions` plugin publishes: a comment or reply stored (after its transaction
 * commits), and a comment's text changed by an edit or a delete (inside that transaction). The
 * `notices` plugin turns the first into notices and keeps their previews true with the second; the
 * two plugins share only these types and the subscriptions table.
 */

export const DISCUSSION_COMMENT_CREATED = 'discussions.comment.created';

export interface DiscussionCommentCreatedEvent {
  tenantId: string;
  actorUserId: string;
  comment: {
    id: string;
    parentCommentId: string | null;
    rootCommentId: string;
    depth: number;
    /** The trimmed plaintext body, or null on encrypted comments (never read on E2EE hubs). */
    plaintext: string | null;
  };
  /** True for replies (`discussion.reply`), false for new threads (`discussion.comment`). */
  isReply: boolean;
  target: EntityTarget;
  /** Author of the comment replied to, when it is a reply and the author still exists. */
  parentAuthorUserId: string | null;
  /** Users named by `@mentions` in a plaintext body (never the actor); already subscribed to the thread. */
  mentionedUserIds: string[];
}

export const DISCUSSION_COMMENT_CHANGED = 'discussions.comment.changed';

/**
 * A comment's text was edited or the comment deleted (tombstoned). Published with the event bus's
 * `publishInTransaction` inside the transaction that changes the comment, before the comment's
 * row is written: a handler's writes go through `tx` and commit or roll back with the change, and
 * a handler that fails fails the edit or delete.
 */
export interface DiscussionCommentChangedEvent {
  /** The store of the transaction that changes the comment. */
  tx: Store;
  tenantId: string;
  commentId: string;
  /** The new trimmed plaintext; null once deleted, or when the new body is encrypted. */
  plaintext: string | null;
  deleted: boolean;
}

/**
 * The comment's text as it is now, read under a lock on its row, inside the caller's transaction:
 * its plaintext body; null once it is deleted (tombstoned) or when the body is encrypted; undefined
 * when no such row exists (nothing to correct). Notices are written after the comment's own
 * transaction, so an edit or delete can land between the two; reading the row here (the edit's
 * transaction locks the same row) makes the notices take the text that is true when they are stored.
 */
export async function currentCommentText(
  tx: Store,
  commentId: string,
): Promise<string | null | undefined> {
  const row = await tx.table(commentsTable).getForUpdate(commentId);
  if (!row) return undefined;
  if (row.tombstonedAt !== null || row.bodyFormat !== 'plaintext') return null;
  return row.body;
}
