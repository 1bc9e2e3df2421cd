/**
 * Thread watches. A thread is its root comment. Subscribing checks that the id is a root the caller
 * can read (anything else is "not found", so ids of other people's threads stay unknown); reading
 * and removing one's own subscription need no such check, as they reveal nothing about the thread.
 */
import type { Hono } from 'hono';
import { notFound } from '../../kernel/errors.ts';
import type { KernelEnv } from '../../kernel/plugin.ts';
import { inTransaction, pathId } from '../entities/access.ts';
import { commentsTable, subscriptionId, subscriptionsTable, type DiscussionEntityType } from './tables.ts';
import { canAccessTarget, loadTarget } from './targets.ts';
import { addSubscriptions, missingSubscriptions, type DiscussionDeps } from './write.ts';

export const THREAD_NOT_FOUND = 'Discussion thread not found';

/** Mounts the thread subscription routes on `app`. */
export function threadRoutes(app: Hono<KernelEnv>, deps: DiscussionDeps): void {
  app.get('/discussion-threads/:id/subscription', async (c) => {
    const rootCommentId = pathId(c, 'id', THREAD_NOT_FOUND);
    const row = await c.var.store.table(subscriptionsTable).get(subscriptionId(c.var.auth.user.id, rootCommentId));
    return c.json({ subscribed: row !== null, rootCommentId });
  });

  app.post('/discussion-threads/:id/subscribe', async (c) => {
    const { store, auth: { user } } = c.var;
    const rootCommentId = pathId(c, 'id', THREAD_NOT_FOUND);
    const root = await store.table(commentsTable).get(rootCommentId);
    if (!root || root.parentCommentId !== null || root.rootCommentId !== root.id) throw notFound(THREAD_NOT_FOUND);
    const target = await loadTarget(store, root.entityType as DiscussionEntityType, root.entityId);
    if (!target || !canAccessTarget(user, target)) throw notFound(THREAD_NOT_FOUND);
    await inTransaction(store, async (tx) => addSubscriptions(tx, await missingSubscriptions(tx, [user.id], root, deps.clock.iso())));
    return c.json({ subscribed: true, rootCommentId });
  });

  app.post('/discussion-threads/:id/unsubscribe', async (c) => {
    const rootCommentId = pathId(c, 'id', THREAD_NOT_FOUND);
    await c.var.store.table(subscriptionsTable).delete(subscriptionId(c.var.auth.user.id, rootCommentId));
    return c.json({ subscribed: false, rootCommentId });
  });
}
