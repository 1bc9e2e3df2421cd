/**
 * Keeping previews true: a notice shows the first 120 characters of its comment, so when the
 * comment is edited every recipient's notice takes the new text, and when it is deleted the text
 * leaves every notice. This runs inside the transaction that changes the comment (the discussions
 * plugin publishes `discussions.comment.changed` there), so the comment and its previews change
 * together or not at all, whatever fails or crashes in between. The feed reads previews from its
 * own rows and stays a single indexed read per batch.
 */
import { noticesTable } from './tables.ts';
import { withPreview } from './records.ts';
import { type DiscussionCommentChangedEvent } from '../discussions/index.ts';

/** Rewrites the preview of every notice about the comment, in the event's transaction. */
export async function updateCommentPreviews(event: DiscussionCommentChangedEvent): Promise<void> {
  const notices = event.tx.table(noticesTable);
  // Every notice of one comment has the same display metadata: one row tells what they all show.
  const sample = await notices.findOne({ discussionCommentId: event.commentId });
  if (!sample) return;
  await notices.updateWhere(
    { discussionCommentId: event.commentId },
    {
      displayMetadata: withPreview(sample.displayMetadata, event.deleted ? null : event.plaintext),
    },
  );
}
