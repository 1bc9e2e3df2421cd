/**
 * Thread watches. A thread is its root comment. Every thread route checks the thread as the
 * comment routes check a comment: an id that is no comment of this tenant (or whose target is
 * gone) is 404 `Discussion thread not found`, and a thread whose target the caller may not use is
 * 403, so an access list that no longer (or never) covered a thread gives no way to read or change
 * anything about it. Subscribing also needs the id to be a root comment (404 otherwise).
 */
import type { Hono } from 'hono';
import { notFound } from '../../kernel/errors.ts';
import type { UserRow } from '../../kernel/identity/tables.ts';
import { lockCaller } from '../../kernel/identity/users.ts';
import type { KernelEnv } from '../../kernel/plugin.ts';
import type { Store } from '../../kernel/storage/contract.ts';
import { commentsTable, subscriptionId, subscriptionsTable, type CommentRow } from './tables.ts';
import { addSubscriptions, missingSubscriptions, type DiscussionDeps } from './write.ts';
import { pathId } from '../../kernel/http/params.ts';
import { assertTargetAccess, loadTarget, type TargetType } from '../entities/index.ts';

export const THREAD_NOT_FOUND = 'Discussion thread not found';

/** The comment `:id` names, after checking it exists (404) and the caller may use its target (403). */
async function requireThreadComment(
  store: Store,
  user: UserRow,
  id: string,
  rootOnly: boolean,
): Promise<CommentRow> {
  const comment = await store.table(commentsTable).get(id);
  if (!comment) throw notFound(THREAD_NOT_FOUND);
  if (rootOnly && (comment.parentCommentId !== null || comment.rootCommentId !== comment.id))
    throw notFound(THREAD_NOT_FOUND);
  const target = await loadTarget(store, comment.entityType as TargetType, comment.entityId);
  if (!target) throw notFound(THREAD_NOT_FOUND);
  assertTargetAccess(user, target);
  return comment;
}

/** Mounts the thread subscription routes on `app`. */
export function threadRoutes(app: Hono<KernelEnv>, deps: DiscussionDeps): void {
  app.get('/discussion-threads/:id/subscription', async (c) => {
    const store = c.get('store');
    const { user } = c.get('auth');
    const rootCommentId = pathId(c, 'id', THREAD_NOT_FOUND);
    await requireThreadComment(store, user, rootCommentId, false);
    const row = await store.table(subscriptionsTable).get(subscriptionId(user.id, rootCommentId));
    return c.json({ subscribed: row !== null, rootCommentId });
  });

  app.post('/discussion-threads/:id/subscribe', async (c) => {
    const store = c.get('store');
    const { user } = c.get('auth');
    const rootCommentId = pathId(c, 'id', THREAD_NOT_FOUND);
    const root = await requireThreadComment(store, user, rootCommentId, true);
    await store.transaction(async (tx) => {
      // Under the caller's row lock, so a subscription cannot outlive its deleted account.
      await lockCaller(tx, user.id);
      await addSubscriptions(tx, await missingSubscriptions(tx, [user.id], root, deps.clock.iso()));
    });
    return c.json({ subscribed: true, rootCommentId });
  });

  app.post('/discussion-threads/:id/unsubscribe', async (c) => {
    const store = c.get('store');
    const { user } = c.get('auth');
    const rootCommentId = pathId(c, 'id', THREAD_NOT_FOUND);
    await requireThreadComment(store, user, rootCommentId, false);
    await store.table(subscriptionsTable).delete(subscriptionId(user.id, rootCommentId));
    return c.json({ subscribed: false, rootCommentId });
  });
}
