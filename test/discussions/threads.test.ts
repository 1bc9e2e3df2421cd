/**
 * Thread subscriptions, @mention auto-subscription, the event published for notices, and the
 * cleanup of discussions when their targets are deleted.
 */
import { describe, expect, it } from 'vitest';
import { removeDiscussions } from '../../plugins/discussions/cleanup.ts';
import { DISCUSSION_COMMENT_CREATED, type DiscussionCommentCreatedEvent } from '../../plugins/discussions/events.ts';
import { commentsTable, subscriptionsTable } from '../../plugins/discussions/tables.ts';
import { httpDrivers } from '../helpers/drivers.ts';
import { uniqueName } from '../helpers/hub.ts';
import { failingDeletes } from '../notices/setup.ts';
import { useDiscussionHub } from './setup.ts';

describe.each(httpDrivers())('discussion threads on %s', (driver) => {
  const h = useDiscussionHub(driver);
  const subscription = async (rootId: string, token?: string) =>
    (await h.t.request('GET', `/discussion-threads/${rootId}/subscription`, token ? { token } : {})).body;

  it('subscribes the author of a comment or reply to the root thread', async () => {
    const col = await h.collection();
    const member = await h.user({ collectionAccess: [col.id] });
    const root = await h.comment(`/collections/${col.id}`);
    expect(await subscription(root.id)).toEqual({ subscribed: true, rootCommentId: root.id });
    expect(await subscription(root.id, member.token)).toEqual({ subscribed: false, rootCommentId: root.id });
    await h.reply(root.id, 'me too', member.token);
    expect(await subscription(root.id, member.token)).toEqual({ subscribed: true, rootCommentId: root.id });
  });

  it('subscribes and unsubscribes explicitly, and is idempotent both ways', async () => {
    const col = await h.collection();
    const member = await h.user({ collectionAccess: [col.id] });
    const root = await h.comment(`/collections/${col.id}`);
    const token = { token: member.token };
    for (let i = 0; i < 2; i++) {
      const res = await h.t.request('POST', `/discussion-threads/${root.id}/subscribe`, token);
      expect(res).toMatchObject({ status: 200, body: { subscribed: true, rootCommentId: root.id } });
    }
    await Promise.all(Array.from({ length: 5 }, () => h.t.request('POST', `/discussion-threads/${root.id}/subscribe`, token)));
    expect(await h.store().table(subscriptionsTable).count({ rootCommentId: root.id, userId: member.id })).toBe(1);
    for (let i = 0; i < 2; i++) {
      const res = await h.t.request('POST', `/discussion-threads/${root.id}/unsubscribe`, token);
      expect(res).toMatchObject({ status: 200, body: { subscribed: false, rootCommentId: root.id } });
    }
    expect(await subscription(root.id, member.token)).toEqual({ subscribed: false, rootCommentId: root.id });
  });

  it('refuses to subscribe to replies, unknown ids and threads the caller cannot read', async () => {
    const col = await h.collection();
    const outsider = await h.user({ collectionAccess: [] });
    const root = await h.comment(`/collections/${col.id}`);
    const reply = await h.reply(root.id);
    for (const [id, token] of [[reply.id, undefined], [crypto.randomUUID(), undefined], ['z'.repeat(400), undefined], [root.id, outsider.token]] as const) {
      const res = await h.t.request('POST', `/discussion-threads/${id}/subscribe`, token ? { token } : {});
      expect(res).toMatchObject({ status: 404, body: { error: 'Discussion thread not found' } });
    }
  });

  it('auto-subscribes mentioned users, matching names with spaces case-insensitively', async () => {
    const col = await h.collection();
    const suffix = uniqueName('m');
    const ann = await h.user({ name: `Ann ${suffix}`, collectionAccess: [col.id] });
    const annLee = await h.user({ name: `Ann ${suffix} Lee`, collectionAccess: [col.id] });
    const bob = await h.user({ name: `bob-${suffix}`, collectionAccess: [col.id] });
    const noAccess = await h.user({ name: `carol-${suffix}`, collectionAccess: [] });
    const events: DiscussionCommentCreatedEvent[] = [];
    const stop = h.t.hub.events.subscribe<DiscussionCommentCreatedEvent>(DISCUSSION_COMMENT_CREATED, (e) => void events.push(e));
    try {
      const root = await h.comment(`/collections/${col.id}`, `hey @ann ${suffix.toUpperCase()} LEE and @BOB-${suffix}.x and @carol-${suffix}`);
      expect((await subscription(root.id, annLee.token)).subscribed).toBe(true);
      expect((await subscription(root.id, ann.token)).subscribed).toBe(false);
      expect((await subscription(root.id, bob.token)).subscribed).toBe(false);
      expect((await subscription(root.id, noAccess.token)).subscribed).toBe(false);
      const reply = await h.reply(root.id, `@Ann ${suffix}, and @bob-${suffix}!`, annLee.token);
      expect((await subscription(root.id, ann.token)).subscribed).toBe(true);
      expect((await subscription(root.id, bob.token)).subscribed).toBe(true);
      expect(events).toHaveLength(2);
      expect(events[0]).toMatchObject({
        tenantId: '__default__', actorUserId: h.t.adminId, isReply: false, parentAuthorUserId: null, mentionedUserIds: [annLee.id],
        comment: { id: root.id, parentCommentId: null, rootCommentId: root.id, depth: 1 },
        target: { entityType: 'collection', entityId: col.id, collectionId: col.id },
      });
      expect(events[1]).toMatchObject({ actorUserId: annLee.id, isReply: true, parentAuthorUserId: h.t.adminId, comment: { id: reply.id, plaintext: reply.body } });
      expect([...events[1]!.mentionedUserIds].sort()).toEqual([ann.id, bob.id].sort());
    } finally {
      stop();
    }
  });

  it('removes comments and subscriptions when a collection, its folders and requests, or a run result are deleted', async () => {
    const col = await h.collection();
    const folder = await h.folder(col.id);
    const req = await h.request(col.id, undefined, folder.id);
    const run = await h.runResult();
    const keep = await h.collection();
    const targets = [`/collections/${col.id}`, `/folders/${folder.id}`, `/requests/${req.id}`, `/run-results/${run.id}`];
    for (const target of targets) await h.reply((await h.comment(target)).id);
    const kept = await h.comment(`/collections/${keep.id}`);
    const ids = [col.id, folder.id, req.id, run.id];
    const store = h.store();
    expect(await store.table(commentsTable).count({ entityId: { in: ids } })).toBe(8);
    expect((await h.t.request('DELETE', `/collections/${col.id}`)).status).toBe(204);
    expect((await h.t.request('DELETE', `/run-results/${run.id}`)).status).toBe(204);
    expect(await store.table(commentsTable).count({ entityId: { in: ids } })).toBe(0);
    expect(await store.table(subscriptionsTable).count({ entityId: { in: ids } })).toBe(0);
    expect(await store.table(commentsTable).get(kept.id)).not.toBeNull();
    expect((await subscription(kept.id)).subscribed).toBe(true);
  });

  it('removes the discussions of a deletion all together or not at all', async () => {
    const col = await h.collection();
    const req = await h.request(col.id);
    for (const target of [`/requests/${req.id}`, `/collections/${col.id}`]) await h.comment(target);
    const ids = [col.id, req.id];
    const store = h.store();
    const event = { tenantId: '__default__', removed: { request: [req.id], collection: [col.id] } };
    // The request's deletes succeed; the collection's subscription delete (the third call) fails.
    await expect(removeDiscussions(failingDeletes(store, 3), event)).rejects.toThrow('failed on purpose');
    expect(await store.table(commentsTable).count({ entityId: { in: ids } })).toBe(2);
    expect(await store.table(subscriptionsTable).count({ entityId: { in: ids } })).toBe(2);
    await removeDiscussions(store, event);
    expect(await store.table(commentsTable).count({ entityId: { in: ids } })).toBe(0);
    expect(await store.table(subscriptionsTable).count({ entityId: { in: ids } })).toBe(0);
  });
});
