/**
 * Storing a new comment or reply: the comment, the author's thread subscription and the mentioned
 * users' subscriptions land in one transaction; the event for notices is published after it
 * commits, so a notice never points at a comment that was rolled back.
 */
import { notFound } from '../../kernel/errors.ts';
import type { ReadCache } from '../../kernel/cache.ts';
import type { Clock } from '../../kernel/clock.ts';
import type { EventBus } from '../../kernel/events.ts';
import { newId } from '../../kernel/identity/secrets.ts';
import { usersTable, type UserRow } from '../../kernel/identity/tables.ts';
import type { Store } from '../../kernel/storage/contract.ts';
import { DISCUSSION_COMMENT_CREATED, type DiscussionCommentCreatedEvent } from './events.ts';
import { findMentions } from './mentions.ts';
import type { StoredBody } from './payload.ts';
import { COMMENT_NOT_FOUND } from './records.ts';
import {
  commentsTable,
  subscriptionId,
  subscriptionsTable,
  type CommentRow,
  type SubscriptionRow,
} from './tables.ts';
import {
  assertTargetAccess,
  canAccessTarget,
  type EntityTarget,
  loadTarget,
  type TargetType,
} from '../entities/index.ts';

/** What the routes need from the plugin context. */
export interface DiscussionDeps {
  clock: Clock;
  events: EventBus;
  /** Whether the hub requires encrypted bodies; read per request because a reload may change it. */
  e2ee(): boolean;
  cache: ReadCache;
}

/**
 * A comment and its target, after checking that the caller may use the target. A comment whose
 * target has vanished reads as missing.
 */
export async function requireComment(
  store: Store,
  user: UserRow,
  id: string,
): Promise<{ comment: CommentRow; target: EntityTarget }> {
  const comment = await store.table(commentsTable).get(id);
  if (!comment) throw notFound(COMMENT_NOT_FOUND);
  const target = await loadTarget(store, comment.entityType as TargetType, comment.entityId);
  if (!target) throw notFound(COMMENT_NOT_FOUND);
  assertTargetAccess(user, target);
  return { comment, target };
}

/**
 * The subscription rows to add so that each user watches the thread; reads only, so a caller can
 * do it before its first write (the storage contract's rule for transactions).
 */
export async function missingSubscriptions(
  tx: Store,
  userIds: readonly string[],
  root: Pick<CommentRow, 'id' | 'entityType' | 'entityId'>,
  now: string,
): Promise<SubscriptionRow[]> {
  const wanted = [...new Set(userIds)].map((userId) => ({
    userId,
    id: subscriptionId(userId, root.id),
  }));
  if (wanted.length === 0) return [];
  const existing = new Set(
    (await tx.table(subscriptionsTable).getMany(wanted.map((row) => row.id))).map((row) => row.id),
  );
  return wanted
    .filter(({ id }) => !existing.has(id))
    .map(({ id, userId }) => ({
      id,
      userId,
      rootCommentId: root.id,
      entityType: root.entityType,
      entityId: root.entityId,
      createdAt: now,
    }));
}

/** Writes rows from {@link missingSubscriptions}. */
export async function addSubscriptions(tx: Store, rows: readonly SubscriptionRow[]): Promise<void> {
  // `put`, not `insert`: a concurrent subscribe of the same user upserts instead of aborting the transaction.
  for (const row of rows) await tx.table(subscriptionsTable).put(row);
}

export interface NewComment {
  store: Store;
  tenantId: string;
  user: UserRow;
  target: EntityTarget;
  body: StoredBody;
  /** The comment replied to (before flattening), or null for a new thread. */
  repliedTo: CommentRow | null;
}

/** Mentioned users who may read the target; others are neither subscribed nor reported. */
async function mentionedUsers(store: Store, input: NewComment): Promise<UserRow[]> {
  if (input.body.plaintext === null || !input.body.plaintext.includes('@')) return [];
  const users = await store.table(usersTable).find({ where: { system: false } });
  return findMentions(input.body.plaintext, users).filter(
    (user) => user.id !== input.user.id && canAccessTarget(user, input.target),
  );
}

/** Stores the comment with its subscriptions, then publishes {@link DISCUSSION_COMMENT_CREATED}. */
export async function createComment(deps: DiscussionDeps, input: NewComment): Promise<CommentRow> {
  const { store, user, target, repliedTo } = input;
  const mentioned = await mentionedUsers(store, input);
  const id = newId();
  // A reply to a depth-3 comment joins that comment's parent, so threads never grow deeper than 3.
  const parent =
    repliedTo && repliedTo.depth >= 3
      ? { id: repliedTo.parentCommentId ?? repliedTo.id, depth: 2 }
      : repliedTo;
  const now = deps.clock.iso();
  const row: CommentRow = {
    id,
    entityType: target.entityType,
    entityId: target.entityId,
    parentCommentId: parent ? parent.id : null,
    rootCommentId: repliedTo ? repliedTo.rootCommentId : id,
    depth: parent ? parent.depth + 1 : 1,
    body: input.body.body,
    bodyFormat: input.body.bodyFormat,
    bodyMetadata: input.body.bodyMetadata,
    authorUserId: user.id,
    createdAt: now,
    updatedAt: now,
    tombstonedAt: null,
    tombstonedByUserId: null,
  };
  await store.transaction(async (tx) => {
    const root = { id: row.rootCommentId, entityType: row.entityType, entityId: row.entityId };
    const subscriptions = await missingSubscriptions(
      tx,
      [user.id, ...mentioned.map((m) => m.id)],
      root,
      now,
    );
    await tx.table(commentsTable).insert(row);
    await addSubscriptions(tx, subscriptions);
  });
  const parentAuthor = repliedTo?.authorUserId
    ? await store.table(usersTable).get(repliedTo.authorUserId)
    : null;
  const event: DiscussionCommentCreatedEvent = {
    tenantId: input.tenantId,
    actorUserId: user.id,
    comment: {
      id: row.id,
      parentCommentId: row.parentCommentId,
      rootCommentId: row.rootCommentId,
      depth: row.depth,
      plaintext: input.body.plaintext,
    },
    isReply: repliedTo !== null,
    target,
    parentAuthorUserId: parentAuthor ? parentAuthor.id : null,
    mentionedUserIds: mentioned.map((m) => m.id),
  };
  await deps.events.publish(DISCUSSION_COMMENT_CREATED, event);
  return row;
}
