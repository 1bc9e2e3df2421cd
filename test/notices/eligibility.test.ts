/**
 * Who gets a notice for a new comment, and as which kind: through real comments over HTTP where the
 * discussions plugin can stage the situation, and through the published event where a subscription
 * row or access change is easier to set up directly.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_TENANT_ID } from '../../kernel/identity/tenants.ts';
import { usersTable } from '../../kernel/identity/tables.ts';
import {
  commentsTable,
  subscriptionsTable,
  subscriptionId,
} from '../../plugins/discussions/tables.ts';
import { DISCUSSION_COMMENT_CHANGED } from '../../plugins/discussions/index.ts';
import { httpDrivers } from '../helpers/drivers.ts';
import type { Account } from '../helpers/fixtures.ts';
import { useTestHub } from '../helpers/hub.ts';
import { useNoticesHub } from './setup.ts';

/** `{ userName: kind }` of the notices each account has, newest first. */
async function kindsOf(f: ReturnType<typeof useNoticesHub>, accounts: Record<string, Account>) {
  const result: Record<string, string[]> = {};
  for (const [name, account] of Object.entries(accounts)) {
    result[name] = (await f.notices(account.token)).notices.map((n) => n.eventType);
  }
  return result;
}

describe.each(httpDrivers())('notice eligibility (%s)', (kind) => {
  const f = useNoticesHub(kind);

  /** A creator with a collection and a request, and a maker of users with access to that collection. */
  async function scene() {
    const owner = await f.user({ collectionAccess: ['*'] });
    const collection = await f.collection(owner.token);
    const request = await f.request(collection.id, { method: 'POST' }, owner.token);
    const member = async () => {
      const account = await f.user({ collectionAccess: [collection.id] });
      return { ...account, name: await userName(account.id) };
    };
    return { owner, collection, request, member, path: `/requests/${request.id}/discussions` };
  }
  const userName = async (id: string) =>
    (await f.t.hub.driver().forTenant(DEFAULT_TENANT_ID).table(usersTable).get(id))!.name;

  it('notifies mentions, the creator and watchers of other threads of a new thread, never the actor', async () => {
    const s = await scene();
    const [watcher, mentioned, actor] = [await s.member(), await s.member(), await s.member()];
    await f.comment(s.path, 'an earlier thread', watcher.token);
    expect(await kindsOf(f, { owner: s.owner })).toEqual({ owner: ['discussion.comment'] });

    await f.comment(s.path, `question for @${mentioned.name}: why POST?`, actor.token);
    expect(await kindsOf(f, { owner: s.owner, watcher, mentioned, actor })).toEqual({
      owner: ['discussion.comment', 'discussion.comment'],
      watcher: ['discussion.comment'],
      mentioned: ['discussion.mention'],
      actor: [],
    });
  });

  it('gives a mentioned creator one mention rather than a comment notice', async () => {
    const s = await scene();
    const actor = await s.member();
    await f.comment(s.path, `@${await userName(s.owner.id)} look`, actor.token);
    expect(await kindsOf(f, { owner: s.owner })).toEqual({ owner: ['discussion.mention'] });
  });

  it('notifies thread subscribers and the parent author of a reply, but not the creator or other threads', async () => {
    const s = await scene();
    const [author, follower, otherThread, replier] = [
      await s.member(),
      await s.member(),
      await s.member(),
      await s.member(),
    ];
    await f.comment(s.path, 'other thread', otherThread.token);
    const root = await f.comment(s.path, 'root', author.token);
    expect(
      (
        await f.t.request('POST', `/discussion-threads/${root.id}/subscribe`, {
          token: follower.token,
        })
      ).status,
    ).toBe(200);
    await f.t.request('POST', '/notices/read-all', { token: s.owner.token });
    const ownerBefore = (await f.notices(s.owner.token)).notices.length;

    await f.reply(root.id, 'a reply', replier.token);
    const kinds = await kindsOf(f, { author, follower, otherThread, replier });
    expect(kinds).toEqual({
      author: ['discussion.reply'],
      follower: ['discussion.reply'],
      otherThread: ['discussion.comment'],
      replier: [],
    });
    expect((await f.notices(s.owner.token)).notices).toHaveLength(ownerBefore);
  });

  it('still tells the parent author about a reply after they unsubscribed from the thread', async () => {
    const s = await scene();
    const [author, replier] = [await s.member(), await s.member()];
    const root = await f.comment(s.path, 'root', author.token);
    await f.t.request('POST', `/discussion-threads/${root.id}/unsubscribe`, {
      token: author.token,
    });
    await f.reply(root.id, 'still here?', replier.token);
    expect(await kindsOf(f, { author })).toEqual({ author: ['discussion.reply'] });
  });

  it('skips candidates who cannot read the target, the system account and deleted users', async () => {
    const s = await scene();
    const outsider = await f.user({ collectionAccess: [] });
    const store = f.t.hub.driver().forTenant(DEFAULT_TENANT_ID);
    const system = (await store.table(usersTable).findOne({ system: true }))!;
    const otherRoot = crypto.randomUUID();
    for (const userId of [outsider.id, system.id, 'deleted-user-id']) {
      await store.table(subscriptionsTable).insert({
        id: subscriptionId(userId, otherRoot),
        userId,
        rootCommentId: otherRoot,
        entityType: 'request',
        entityId: s.request.id,
        createdAt: new Date().toISOString(),
      });
    }
    const actor = await s.member();
    await f.publish({
      actorUserId: actor.id,
      entityType: 'request',
      entityId: s.request.id,
      mentionedUserIds: [outsider.id],
    });
    expect(await kindsOf(f, { outsider, owner: s.owner })).toEqual({
      outsider: [],
      owner: ['discussion.comment'],
    });
    expect(
      await store
        .table((await import('../../plugins/notices/tables.ts')).noticesTable)
        .count({ recipientUserId: { in: [system.id, 'deleted-user-id'] } }),
    ).toBe(0);
  });

  it("honours each user's level: mentions only, or nothing at all", async () => {
    const s = await scene();
    const [quiet, silent, actor] = [await s.member(), await s.member(), await s.member()];
    await f.t.request('PUT', '/me/notification-settings', {
      token: quiet.token,
      body: { level: 'mentions' },
    });
    await f.t.request('PUT', '/me/notification-settings', {
      token: silent.token,
      body: { level: 'none' },
    });
    await f.comment(s.path, 'watching', quiet.token);
    await f.comment(s.path, 'watching too', silent.token);
    await f.comment(s.path, 'no mentions here', actor.token);
    expect(await kindsOf(f, { quiet, silent })).toEqual({ quiet: [], silent: [] });
    await f.comment(s.path, `@${quiet.name} and @${silent.name}`, actor.token);
    expect(await kindsOf(f, { quiet, silent })).toEqual({
      quiet: ['discussion.mention'],
      silent: [],
    });
  });

  it('stores the full notice record with actor, target ids and a cut preview', async () => {
    const s = await scene();
    const [watcher, actor] = [await s.member(), await s.member()];
    const root = await f.comment(s.path, 'thread', watcher.token);
    const long = `  ${'x'.repeat(130)}  `;
    const reply = await f.reply(root.id, long, actor.token);
    const [notice] = (await f.notices(watcher.token)).notices;
    expect(notice).toMatchObject({
      eventType: 'discussion.reply',
      entityType: 'request',
      entityId: s.request.id,
      requestId: s.request.id,
      collectionId: s.collection.id,
      folderId: null,
      runResultId: null,
      discussionThreadId: root.id,
      discussionCommentId: reply.id,
      readAt: null,
      actor: {
        id: actor.id,
        name: actor.name,
        avatar: { initials: expect.any(String), color: expect.any(String) },
      },
      displayMetadata: {
        actorName: actor.name,
        targetLabel: s.request.name,
        method: 'POST',
        requestName: s.request.name,
        previewText: `${'x'.repeat(117)}...`,
      },
    });
    expect(Date.parse(notice.createdAt)).not.toBeNaN();
  });

  it('keeps a 120-character preview whole and omits it for encrypted comments', async () => {
    const s = await scene();
    const [watcher, actor] = [await s.member(), await s.member()];
    await f.comment(s.path, 'watching', watcher.token);
    await f.comment(`/collections/${s.collection.id}/discussions`, 'watching', watcher.token);
    await f.publish({
      actorUserId: actor.id,
      entityType: 'collection',
      entityId: s.collection.id,
      comment: plain('y'.repeat(120)),
    });
    await f.publish({
      actorUserId: actor.id,
      entityType: 'request',
      entityId: s.request.id,
      comment: plain(null),
    });
    // Both may carry the same millisecond, so they are told apart by target, not by position.
    const notices = (await f.notices(watcher.token)).notices as {
      entityType: string;
      displayMetadata: Record<string, unknown>;
    }[];
    const whole = notices.find((n) => n.entityType === 'collection')!;
    const encrypted = notices.find((n) => n.entityType === 'request')!;
    expect(notices).toHaveLength(2);
    expect(whole.displayMetadata).toEqual({
      actorName: actor.name,
      targetLabel: s.collection.name,
      previewText: 'y'.repeat(120),
    });
    expect(encrypted.displayMetadata.previewText).toBeUndefined();
    expect('previewText' in encrypted.displayMetadata).toBe(false);
  });

  it("shows an edited comment's new text in every recipient's notice, and none once it is deleted", async () => {
    const s = await scene();
    const [first, second, actor] = [await s.member(), await s.member(), await s.member()];
    const root = await f.comment(s.path, 'thread', first.token);
    await f.reply(root.id, 'me too', second.token);
    const reply = await f.reply(root.id, 'the secret is 1234', actor.token);
    const previews = async () =>
      Promise.all(
        [first, second].map(async (account) => {
          const notices = (await f.notices(account.token)).notices;
          const notice = notices.find((n) => n.discussionCommentId === reply.id)!;
          return notice.displayMetadata.previewText;
        }),
      );
    expect(await previews()).toEqual(['the secret is 1234', 'the secret is 1234']);

    const edited = await f.t.request('PUT', `/discussion-comments/${reply.id}`, {
      token: actor.token,
      body: { body: `  ${'z'.repeat(125)} ` },
    });
    expect(edited.status, edited.text).toBe(200);
    expect(await previews()).toEqual([`${'z'.repeat(117)}...`, `${'z'.repeat(117)}...`]);

    const deleted = await f.t.request('DELETE', `/discussion-comments/${reply.id}`, {
      token: actor.token,
    });
    expect(deleted.status, deleted.text).toBe(200);
    expect(await previews()).toEqual([undefined, undefined]);
    const notice = (await f.notices(first.token)).notices.find(
      (n) => n.discussionCommentId === reply.id,
    );
    const read = await f.t.request('POST', `/notices/${notice.id}/read`, { token: first.token });
    expect(read.status, read.text).toBe(200);
    expect('previewText' in read.body.displayMetadata).toBe(false);
    expect(read.text).not.toContain('1234');
  });

  it("writes notices with the comment's text as it is when they are stored: the edited text, or none once deleted", async () => {
    const s = await scene();
    const [watcher, actor] = [await s.member(), await s.member()];
    await f.comment(`/collections/${s.collection.id}/discussions`, 'watching', watcher.token);
    const edited = await f.comment(s.path, 'original words', actor.token);
    const deleted = await f.comment(s.path, 'the secret is 1234', actor.token);
    expect(
      (
        await f.t.request('PUT', `/discussion-comments/${edited.id}`, {
          token: actor.token,
          body: { body: 'edited words' },
        })
      ).status,
    ).toBe(200);
    expect(
      (await f.t.request('DELETE', `/discussion-comments/${deleted.id}`, { token: actor.token }))
        .status,
    ).toBe(200);
    // The created events arrive only now, carrying the text each comment had when it was stored,
    // as when an edit or a delete lands between a comment's commit and its notices.
    for (const [comment, text] of [
      [edited, 'original words'],
      [deleted, 'the secret is 1234'],
    ] as const) {
      await f.publish({
        actorUserId: actor.id,
        entityType: 'collection',
        entityId: s.collection.id,
        comment: { ...plain(text), id: comment.id, rootCommentId: comment.id },
      });
    }
    const notices = (await f.notices(watcher.token)).notices;
    const previewOf = (id: string) =>
      notices.find((n) => n.discussionCommentId === id)!.displayMetadata.previewText;
    expect(previewOf(edited.id)).toBe('edited words');
    expect(previewOf(deleted.id)).toBeUndefined();
    expect(JSON.stringify(notices)).not.toContain('1234');
  });

  it('rolls an edit back with the previews when a step in its transaction fails', async () => {
    const s = await scene();
    const [watcher, actor] = [await s.member(), await s.member()];
    const root = await f.comment(s.path, 'thread', watcher.token);
    const reply = await f.reply(root.id, 'first words', actor.token);
    // Runs after the notices plugin's handler (subscribed at setup), inside the same transaction.
    const off = f.t.hub.events.subscribe(DISCUSSION_COMMENT_CHANGED, () => {
      throw new Error('fails on purpose after the previews were written');
    });
    try {
      for (const change of [
        () =>
          f.t.request('PUT', `/discussion-comments/${reply.id}`, {
            token: actor.token,
            body: { body: 'second words' },
          }),
        () => f.t.request('DELETE', `/discussion-comments/${reply.id}`, { token: actor.token }),
      ]) {
        expect((await change()).status).toBe(500);
        const comment = await f.t.store().table(commentsTable).get(reply.id);
        expect(comment).toMatchObject({ body: 'first words', tombstonedAt: null });
        const [notice] = (await f.notices(watcher.token)).notices;
        expect(notice.displayMetadata.previewText).toBe('first words');
      }
    } finally {
      off();
    }
  });
});

function plain(plaintext: string | null) {
  const id = crypto.randomUUID();
  return { id, parentCommentId: null, rootCommentId: id, depth: 1, plaintext };
}

describe.each(httpDrivers())('notice previews on an E2EE hub (%s)', (kind) => {
  const f = useNoticesHub(kind);
  // A hub on the same database that requires encrypted bodies, as after switching E2EE on.
  const e2ee = useTestHub(f.t, { config: { collaboration: { e2ee: true } } });

  it('shows no preview stored before E2EE was switched on', async () => {
    const owner = await f.user({ collectionAccess: ['*'] });
    const collection = await f.collection(owner.token);
    const reader = await f.user({ collectionAccess: [collection.id] });
    await f.publish({
      actorUserId: owner.id,
      entityType: 'collection',
      entityId: collection.id,
      mentionedUserIds: [reader.id],
      comment: plain('written in plaintext'),
    });
    const [plainHub] = (await f.notices(reader.token)).notices;
    expect(plainHub.displayMetadata.previewText).toBe('written in plaintext');
    const feed = await e2ee.request('GET', '/notices', { token: reader.token });
    expect(feed.status).toBe(200);
    expect('previewText' in feed.body.notices[0].displayMetadata).toBe(false);
    const read = await e2ee.request('POST', `/notices/${plainHub.id}/read`, {
      token: reader.token,
    });
    expect(read.status).toBe(200);
    expect(read.text).not.toContain('written in plaintext');
  });
});
