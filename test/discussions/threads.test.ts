/**
 * Thread subscriptions, @mention auto-subscription, the event published for notices, and the
 * cleanup of discussions when their targets are deleted.
 */
import { describe, expect, it } from 'vitest';
import { removeDiscussions } from '../../plugins/discussions/cleanup.ts';
import {
  DISCUSSION_COMMENT_CREATED,
  type DiscussionCommentCreatedEvent,
} from '../../plugins/discussions/events.ts';
import {
  commentsTable,
  subscriptionId,
  subscriptionsTable,
} from '../../plugins/discussions/tables.ts';
import { httpDrivers } from '../helpers/drivers.ts';
import { uniqueName } from '../helpers/hub.ts';
import { failingDeletes } from '../helpers/drivers.ts';
import { useDiscussionHub } from './setup.ts';

describe.each(httpDrivers())('discussion threads on %s', (driver) => {
  const h = useDiscussionHub(driver);
  const subscription = async (rootId: string, token?: string) =>
    (await h.t.request('GET', `/discussion-threads/${rootId}/subscription`, token ? { token } : {}))
      .body;

  it('subscribes the author of a comment or reply to the root thread', async () => {
    const col = await h.collection();
    const member = await h.user({ collectionAccess: [col.id] });
    const root = await h.comment(`/collections/${col.id}`);
    expect(await subscription(root.id)).toEqual({ subscribed: true, rootCommentId: root.id });
    expect(await subscription(root.id, member.token)).toEqual({
      subscribed: false,
      rootCommentId: root.id,
    });
    await h.reply(root.id, 'me too', member.token);
    expect(await subscription(root.id, member.token)).toEqual({
      subscribed: true,
      rootCommentId: root.id,
    });
  });

  it('subscribes and unsubscribes explicitly, and is idempotent both ways', async () => {
    const col = await h.collection();
    const member = await h.user({ collectionAccess: [col.id] });
    const root = await h.comment(`/collections/${col.id}`);
    const token = { token: member.token };
    for (let i = 0; i < 2; i++) {
      const res = await h.t.request('POST', `/discussion-threads/${root.id}/subscribe`, token);
      expect(res).toMatchObject({
        status: 200,
        body: { subscribed: true, rootCommentId: root.id },
      });
    }
    await Promise.all(
      Array.from({ length: 5 }, () =>
        h.t.request('POST', `/discussion-threads/${root.id}/subscribe`, token),
      ),
    );
    expect(
      await h.t
        .store()
        .table(subscriptionsTable)
        .count({ rootCommentId: root.id, userId: member.id }),
    ).toBe(1);
    for (let i = 0; i < 2; i++) {
      const res = await h.t.request('POST', `/discussion-threads/${root.id}/unsubscribe`, token);
      expect(res).toMatchObject({
        status: 200,
        body: { subscribed: false, rootCommentId: root.id },
      });
    }
    expect(await subscription(root.id, member.token)).toEqual({
      subscribed: false,
      rootCommentId: root.id,
    });
  });

  it('refuses to subscribe to replies and unknown ids with 404, and to threads the caller cannot read with 403', async () => {
    const col = await h.collection();
    const outsider = await h.user({ collectionAccess: [] });
    const root = await h.comment(`/collections/${col.id}`);
    const reply = await h.reply(root.id);
    for (const id of [reply.id, crypto.randomUUID(), 'z'.repeat(400)]) {
      const res = await h.t.request('POST', `/discussion-threads/${id}/subscribe`);
      expect(res).toMatchObject({ status: 404, body: { error: 'Discussion thread not found' } });
    }
    const res = await h.t.request('POST', `/discussion-threads/${root.id}/subscribe`, {
      token: outsider.token,
    });
    expect([res.status, res.body]).toEqual([
      403,
      {
        error: 'You have no access to this collection: it is not in your collectionAccess list.',
        code: 'forbidden',
      },
    ]);
    expect(
      await h.t
        .store()
        .table(subscriptionsTable)
        .count({ rootCommentId: root.id, userId: outsider.id }),
    ).toBe(0);
  });

  const THREAD_ROUTES = [
    ['GET', 'subscription'],
    ['POST', 'subscribe'],
    ['POST', 'unsubscribe'],
  ] as const;
  const threadRoute = (method: string, action: string, rootId: string, token?: string) =>
    h.t.request(method, `/discussion-threads/${rootId}/${action}`, token ? { token } : {});

  it('answers 403 on every thread route for a thread on a request in a collection outside the access list, and changes nothing', async () => {
    const [a, b] = [await h.collection(), await h.collection()];
    const user = await h.user({ collectionAccess: [a.id] });
    const otherRequest = await h.request(b.id);
    const other = await h.comment(`/requests/${otherRequest.id}`);
    const own = await h.comment(`/requests/${(await h.request(a.id)).id}`);
    // The user was subscribed to B's thread while they could still read it.
    await h.t
      .store()
      .table(subscriptionsTable)
      .put({
        id: subscriptionId(user.id, other.id),
        userId: user.id,
        rootCommentId: other.id,
        entityType: 'request',
        entityId: otherRequest.id,
        createdAt: new Date().toISOString(),
      });
    for (const [method, action] of THREAD_ROUTES) {
      const refused = await threadRoute(method, action, other.id, user.token);
      expect([method, action, refused.status, refused.body]).toEqual([
        method,
        action,
        403,
        {
          error: 'You have no access to this collection: it is not in your collectionAccess list.',
          code: 'forbidden',
        },
      ]);
      const allowed = await threadRoute(method, action, own.id, user.token);
      expect([method, action, allowed.status]).toEqual([method, action, 200]);
    }
    expect(
      await h.t
        .store()
        .table(subscriptionsTable)
        .count({ rootCommentId: other.id, userId: user.id }),
    ).toBe(1);
  });

  it("answers 403 on every thread route for a thread on someone else's run result outside any collection", async () => {
    const owner = await h.user({ collectionAccess: ['*'] });
    const outsider = await h.user({ collectionAccess: ['*'] });
    const run = await h.runResult(owner.token);
    const root = await h.comment(`/run-results/${run.id}`, 'results look odd', owner.token);
    for (const [method, action] of THREAD_ROUTES) {
      const res = await threadRoute(method, action, root.id, outsider.token);
      expect([method, action, res.status]).toEqual([method, action, 403]);
      expect((await threadRoute(method, action, root.id, owner.token)).status).toBe(200);
    }
  });

  it('answers 404 on every thread route for an id that is no comment', async () => {
    for (const [method, action] of THREAD_ROUTES) {
      const res = await threadRoute(method, action, crypto.randomUUID());
      expect([method, action, res.status, res.body]).toEqual([
        method,
        action,
        404,
        { error: 'Discussion thread not found', code: 'not_found' },
      ]);
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
    const stop = h.t.hub.events.subscribe<DiscussionCommentCreatedEvent>(
      DISCUSSION_COMMENT_CREATED,
      (e) => void events.push(e),
    );
    try {
      const root = await h.comment(
        `/collections/${col.id}`,
        `hey @ann ${suffix.toUpperCase()} LEE and @BOB-${suffix}.x and @carol-${suffix}`,
      );
      expect((await subscription(root.id, annLee.token)).subscribed).toBe(true);
      expect((await subscription(root.id, ann.token)).subscribed).toBe(false);
      expect((await subscription(root.id, bob.token)).subscribed).toBe(false);
      expect(
        await h.t
          .store()
          .table(subscriptionsTable)
          .count({ rootCommentId: root.id, userId: noAccess.id }),
      ).toBe(0);
      const reply = await h.reply(root.id, `@Ann ${suffix}, and @bob-${suffix}!`, annLee.token);
      expect((await subscription(root.id, ann.token)).subscribed).toBe(true);
      expect((await subscription(root.id, bob.token)).subscribed).toBe(true);
      expect(events).toHaveLength(2);
      expect(events[0]).toMatchObject({
        tenantId: '__default__',
        actorUserId: h.t.adminId,
        isReply: false,
        parentAuthorUserId: null,
        mentionedUserIds: [annLee.id],
        comment: { id: root.id, parentCommentId: null, rootCommentId: root.id, depth: 1 },
        target: { entityType: 'collection', entityId: col.id, collectionId: col.id },
      });
      expect(events[1]).toMatchObject({
        actorUserId: annLee.id,
        isReply: true,
        parentAuthorUserId: h.t.adminId,
        comment: { id: reply.id, plaintext: reply.body },
      });
      expect([...events[1]!.mentionedUserIds].sort()).toEqual([ann.id, bob.id].sort());
    } finally {
      stop();
    }
  });

  it('removes comments and subscriptions when a collection, its folders and requests, or a run result are deleted', async () => {
    const col = await h.collection();
    const folder = await h.folder(col.id);
    const req = await h.request(col.id, { folderId: folder.id });
    const run = await h.runResult();
    const keep = await h.collection();
    const targets = [
      `/collections/${col.id}`,
      `/folders/${folder.id}`,
      `/requests/${req.id}`,
      `/run-results/${run.id}`,
    ];
    for (const target of targets) await h.reply((await h.comment(target)).id);
    const kept = await h.comment(`/collections/${keep.id}`);
    const ids = [col.id, folder.id, req.id, run.id];
    const store = h.t.store();
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
    const store = h.t.store();
    const event = { tenantId: '__default__', removed: { request: [req.id], collection: [col.id] } };
    // The request's deletes succeed; the collection's subscription delete (the third call) fails.
    await expect(removeDiscussions(failingDeletes(store, 3), event)).rejects.toThrow(
      'failed on purpose',
    );
    expect(await store.table(commentsTable).count({ entityId: { in: ids } })).toBe(2);
    expect(await store.table(subscriptionsTable).count({ entityId: { in: ids } })).toBe(2);
    await removeDiscussions(store, event);
    expect(await store.table(commentsTable).count({ entityId: { in: ids } })).toBe(0);
    expect(await store.table(subscriptionsTable).count({ entityId: { in: ids } })).toBe(0);
  });
});

describe.each(httpDrivers())('discussion threads across tenants on %s', (driver) => {
  const h = useDiscussionHub(driver, { config: { multitenancy: { enabled: true } } });

  it('answers 404 on every thread route for a thread of another tenant, even to an admin', async () => {
    const tenant = uniqueName('tenant')
      .replace(/[^A-Za-z0-9_-]/g, '')
      .slice(0, 60);
    await h.t.hub.identity.tenants.create(tenant, 'Other');
    const foreignAdmin = await h.t.createUser({ role: 'admin' }, tenant);
    const col = await h.t.request('POST', '/collections', {
      token: foreignAdmin.token,
      tenant,
      body: { name: uniqueName('collection') },
    });
    expect(col.status, col.text).toBe(200);
    const root = await h.t.request('POST', `/collections/${col.body.id}/discussions`, {
      token: foreignAdmin.token,
      tenant,
      body: { body: 'theirs' },
    });
    expect(root.status, root.text).toBe(200);
    for (const [method, action] of [
      ['GET', 'subscription'],
      ['POST', 'subscribe'],
      ['POST', 'unsubscribe'],
    ] as const) {
      const res = await h.t.request(method, `/discussion-threads/${root.body.id}/${action}`);
      expect([method, action, res.status]).toEqual([method, action, 404]);
      const home = await h.t.request(method, `/discussion-threads/${root.body.id}/${action}`, {
        token: foreignAdmin.token,
        tenant,
      });
      expect([method, action, home.status]).toEqual([method, action, 200]);
    }
  });
});
