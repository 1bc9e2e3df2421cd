/**
 * Turning a stored comment into notices: pick the recipients, write all their notices in one
 * transaction (all or nothing), then push one fan-out message per notice. The push comes after the
 * commit so a client that fetches on the push always finds the row.
 */
import type { Clock } from '../../kernel/clock.ts';
import { newId } from '../../kernel/identity/secrets.ts';
import { usersTable } from '../../kernel/identity/tables.ts';
import type { Store } from '../../kernel/storage/contract.ts';
import type { NoticeFanout } from './fanout.ts';
import { countUnread } from './feed.ts';
import { previewText, withPreview } from './records.ts';
import { resolveRecipients } from './recipients.ts';
import { noticesTable, type NoticeDisplayMetadata, type NoticeRow } from './tables.ts';
import { currentCommentText, type DiscussionCommentCreatedEvent } from '../discussions/index.ts';

export interface CreateNoticesDeps {
  storage(tenantId: string): Store;
  clock: Clock;
  fanout: NoticeFanout;
}

/** What every notice about this comment shows, whoever receives it. */
function displayMetadata(
  event: DiscussionCommentCreatedEvent,
  actorName: string,
): NoticeDisplayMetadata {
  const { target } = event;
  const preview = previewText(event.comment.plaintext);
  return {
    actorName,
    targetLabel: target.label,
    ...(target.method !== undefined ? { method: target.method } : {}),
    ...(target.entityType === 'request' ? { requestName: target.label } : {}),
    ...(target.entityType === 'runResult' ? { runLabel: target.label } : {}),
    ...(preview !== undefined ? { previewText: preview } : {}),
  };
}

/** Stores the notices for one new comment and announces them; returns the stored rows. */
export async function createCommentNotices(
  deps: CreateNoticesDeps,
  event: DiscussionCommentCreatedEvent,
): Promise<NoticeRow[]> {
  const store = deps.storage(event.tenantId);
  const recipients = await resolveRecipients(store, event);
  if (recipients.length === 0) return [];
  const actor = await store.table(usersTable).get(event.actorUserId);
  const metadata = displayMetadata(event, actor?.name ?? 'Unknown user');
  const createdAt = deps.clock.iso();
  const { target, comment } = event;
  const rows: NoticeRow[] = recipients.map(({ user, kind }) => ({
    id: newId(),
    recipientUserId: user.id,
    eventType: kind,
    entityType: target.entityType,
    entityId: target.entityId,
    requestId: target.requestId,
    collectionId: target.collectionId,
    folderId: target.folderId,
    runResultId: target.runResultId,
    discussionThreadId: comment.rootCommentId,
    discussionCommentId: comment.id,
    actorUserId: event.actorUserId,
    displayMetadata: metadata,
    createdAt,
    readAt: null,
  }));
  await store.transaction(async (tx) => {
    // An edit or delete between the comment's commit and now found no notices to update: store
    // the text the comment has now (none once deleted).
    const text = await currentCommentText(tx, comment.id);
    if (text !== undefined && text !== comment.plaintext) {
      const current = withPreview(metadata, text);
      for (const row of rows) row.displayMetadata = current;
    }
    const notices = tx.table(noticesTable);
    for (const row of rows) await notices.insert(row);
  });

  for (const [i, row] of rows.entries()) {
    // The same number GET /notices/unread-count answers: only notices the feed would show.
    const unreadCount = await countUnread(store, recipients[i]!.user);
    await deps.fanout.publish({
      v: 1,
      type: 'notice.created',
      tenantId: event.tenantId,
      recipientUserId: row.recipientUserId,
      noticeId: row.id,
      unreadCount,
    });
  }
  return rows;
}
