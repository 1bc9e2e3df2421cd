import { type EntityTarget } from '../entities/index.ts';
/**
 * The event the `discussions` plugin publishes after a comment or reply is stored (after its
 * transaction commits). The `notices` plugin turns it into notices; nothing else is needed from
 * the discussions side, so the two plugins only share this type and the subscriptions table.
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
