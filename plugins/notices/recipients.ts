/**
 * Who hears about a new comment, and as which kind. Candidates come from several sources; the
 * first source that names a user decides their kind, so a user mentioned in a reply to their own
 * thread gets one `discussion.mention`, not three notices. Unlike the reference hub, a new thread
 * also reaches the target's creator and everyone watching another thread on the same target, so
 * `discussion.comment` is actually emitted.
 */
import { usersTable, type UserRow } from '../../kernel/identity/tables.ts';
import type { Store } from '../../kernel/storage/contract.ts';
import { notificationSettingsTable, type NotificationLevel } from './tables.ts';
import { canAccessTarget } from '../entities/index.ts';
import { type DiscussionCommentCreatedEvent, subscriptionsTable } from '../discussions/index.ts';

export const NOTICE_KINDS = [
  'discussion.comment',
  'discussion.reply',
  'discussion.mention',
] as const;
export type NoticeKind = (typeof NOTICE_KINDS)[number];

export interface Recipient {
  user: UserRow;
  kind: NoticeKind;
}

/** Candidate user ids in precedence order, each with the kind its first source gives. */
async function candidates(
  store: Store,
  event: DiscussionCommentCreatedEvent,
): Promise<Map<string, NoticeKind>> {
  const { comment, target } = event;
  const found = new Map<string, NoticeKind>();
  const offer = (userId: string | null, kind: NoticeKind) => {
    if (userId && userId !== event.actorUserId && !found.has(userId)) found.set(userId, kind);
  };
  for (const id of event.mentionedUserIds) offer(id, 'discussion.mention');

  const subscriptions = store.table(subscriptionsTable);
  if (event.isReply) {
    for (const sub of await subscriptions.find({ where: { rootCommentId: comment.rootCommentId } }))
      offer(sub.userId, 'discussion.reply');
    offer(event.parentAuthorUserId, 'discussion.reply');
    return found;
  }
  // One query covers this thread and every other thread on the target; this thread's watchers
  // come first because their source ranks higher (for a new root they are the actor and mentions).
  const onTarget = await subscriptions.find({
    where: { entityType: target.entityType, entityId: target.entityId },
  });
  for (const sub of onTarget)
    if (sub.rootCommentId === comment.rootCommentId) offer(sub.userId, 'discussion.comment');
  offer(target.creatorUserId, 'discussion.comment');
  for (const sub of onTarget) offer(sub.userId, 'discussion.comment');
  return found;
}

/** Whether a user's level lets this kind through. */
export function levelAllows(level: NotificationLevel, kind: NoticeKind): boolean {
  if (level === 'none') return false;
  if (level === 'mentions') return kind === 'discussion.mention';
  return true;
}

/**
 * The users to notify about this comment: existing, not the system account, still able to read the
 * target, and whose notification level allows the kind. In precedence order.
 */
export async function resolveRecipients(
  store: Store,
  event: DiscussionCommentCreatedEvent,
): Promise<Recipient[]> {
  const kinds = await candidates(store, event);
  if (kinds.size === 0) return [];
  const ids = [...kinds.keys()];
  const [users, settings] = await Promise.all([
    store.table(usersTable).getMany(ids),
    store.table(notificationSettingsTable).getMany(ids),
  ]);
  const byId = new Map(users.map((user) => [user.id, user]));
  const levels = new Map(settings.map((row) => [row.id, row.level as NotificationLevel]));
  const recipients: Recipient[] = [];
  for (const [id, kind] of kinds) {
    const user = byId.get(id);
    if (!user || user.system || !canAccessTarget(user, event.target)) continue;
    if (!levelAllows(levels.get(id) ?? 'all', kind)) continue;
    recipients.push({ user, kind });
  }
  return recipients;
}
