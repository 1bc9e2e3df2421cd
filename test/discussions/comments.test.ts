/**
 * Comments and replies on plaintext hubs: records, access, depth flattening, edits, tombstones and
 * malformed input (always a 400 or 404, never a 500).
 */
import { describe, expect, it } from 'vitest';
import { usersTable } from '../../kernel/identity/tables.ts';
import { AVATAR_PALETTE } from '../../kernel/identity/avatar-defaults.ts';
import { httpDrivers } from '../helpers/drivers.ts';
import { useDiscussionHub } from './setup.ts';

describe.each(httpDrivers())('discussion comments on %s', (driver) => {
  const h = useDiscussionHub(driver);

  it('creates a comment with the full record, a trimmed body and the author avatar', async () => {
    const col = await h.collection();
    const res = await h.post(`/collections/${col.id}`, { body: '  Looks good  ' });
    expect(res.status).toBe(200);
    const c = res.body;
    expect(Object.keys(c).sort()).toEqual(
      [
        'author',
        'body',
        'bodyFormat',
        'createdAt',
        'depth',
        'encryptedPayload',
        'entityId',
        'entityType',
        'id',
        'parentCommentId',
        'rootCommentId',
        'tombstoned',
        'updatedAt',
      ].sort(),
    );
    expect(c).toMatchObject({
      entityType: 'collection',
      entityId: col.id,
      parentCommentId: null,
      rootCommentId: c.id,
      depth: 1,
      body: 'Looks good',
      bodyFormat: 'plaintext',
      encryptedPayload: null,
      tombstoned: false,
    });
    expect(c.author.id).toBe(h.t.adminId);
    expect(AVATAR_PALETTE).toContain(c.author.avatar.color);
    expect(c.author.avatar.initials).toMatch(/^\p{Lu}{1,2}$/u);
    expect(c.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('accepts comments on requests, folders and run results', async () => {
    const col = await h.collection();
    const folder = await h.folder(col.id);
    const req = await h.request(col.id);
    const run = await h.runResult(undefined, col.id);
    for (const [path, type, id] of [
      ['requests', 'request', req.id],
      ['folders', 'folder', folder.id],
      ['run-results', 'runResult', run.id],
    ]) {
      const c = await h.comment(`/${path}/${id}`);
      expect(c).toMatchObject({ entityType: type, entityId: id });
      expect((await h.list(`/${path}/${id}`)).body.comments.map((x: any) => x.id)).toEqual([c.id]);
    }
  });

  it('answers 404 for unknown or impossible targets and 403 without collection access', async () => {
    const unknown = await h.post(`/requests/${crypto.randomUUID()}`, { body: 'x' });
    expect(unknown).toMatchObject({ status: 404, body: { error: 'Target entity not found' } });
    expect((await h.list(`/folders/${'x'.repeat(500)}`)).status).toBe(404);
    const col = await h.collection();
    const req = await h.request(col.id);
    const outsider = await h.user({ collectionAccess: [] });
    const c = await h.comment(`/requests/${req.id}`);
    for (const res of [
      await h.post(`/requests/${req.id}`, { body: 'x' }, outsider.token),
      await h.list(`/collections/${col.id}`, '', outsider.token),
      await h.t.request('POST', `/discussion-comments/${c.id}/replies`, {
        token: outsider.token,
        body: { body: 'x' },
      }),
      await h.t.request('PUT', `/discussion-comments/${c.id}`, {
        token: outsider.token,
        body: { body: 'x' },
      }),
      await h.t.request('DELETE', `/discussion-comments/${c.id}`, { token: outsider.token }),
    ])
      expect(res).toMatchObject({
        status: 403,
        body: {
          error: 'You have no access to this collection: it is not in your collectionAccess list.',
          code: 'forbidden',
        },
      });
    const member = await h.user({ collectionAccess: [col.id] });
    expect((await h.post(`/requests/${req.id}`, { body: 'hi' }, member.token)).status).toBe(200);
  });

  it('lets run-result threads be used by the creator, admins and members of the run collection only', async () => {
    const col = await h.collection();
    const member = await h.user({ collectionAccess: [col.id] });
    const stranger = await h.user({ collectionAccess: [] });
    const linked = await h.runResult(stranger.token);
    expect(
      (await h.post(`/run-results/${linked.id}`, { body: 'mine' }, stranger.token)).status,
    ).toBe(200);
    expect((await h.post(`/run-results/${linked.id}`, { body: 'admin' })).status).toBe(200);
    expect((await h.post(`/run-results/${linked.id}`, { body: 'nope' }, member.token)).status).toBe(
      403,
    );
    const inCollection = await h.runResult(undefined, col.id);
    expect(
      (await h.post(`/run-results/${inCollection.id}`, { body: 'member' }, member.token)).status,
    ).toBe(200);
    expect((await h.list(`/run-results/${inCollection.id}`, '', stranger.token)).status).toBe(403);
  });

  it('flattens replies deeper than three levels onto the depth-3 comment parent', async () => {
    const col = await h.collection();
    const root = await h.comment(`/collections/${col.id}`);
    const d2 = await h.reply(root.id);
    const d3 = await h.reply(d2.id);
    const d4 = await h.reply(d3.id);
    expect([d2.depth, d3.depth, d4.depth]).toEqual([2, 3, 3]);
    expect([d2.parentCommentId, d3.parentCommentId, d4.parentCommentId]).toEqual([
      root.id,
      d2.id,
      d2.id,
    ]);
    for (const c of [root, d2, d3, d4]) expect(c.rootCommentId).toBe(root.id);
    const unknown = await h.t.request(
      'POST',
      `/discussion-comments/${crypto.randomUUID()}/replies`,
      { body: { body: 'x' } },
    );
    expect(unknown).toMatchObject({ status: 404, body: { error: 'Discussion comment not found' } });
  });

  it('lets only the author edit, and treats tombstoned comments as missing', async () => {
    const col = await h.collection();
    const member = await h.user({ collectionAccess: [col.id] });
    const c = await h.comment(`/collections/${col.id}`, 'first', member.token);
    const byAdmin = await h.t.request('PUT', `/discussion-comments/${c.id}`, {
      body: { body: 'hijack' },
    });
    expect([byAdmin.status, byAdmin.body]).toEqual([
      403,
      { error: "Only the comment's author can edit it.", code: 'forbidden' },
    ]);
    const byMember = await h.t.request(
      'PUT',
      `/discussion-comments/${(await h.comment(`/collections/${col.id}`)).id}`,
      { token: member.token, body: { body: 'hijack' } },
    );
    expect([byMember.status, byMember.body]).toEqual([
      403,
      { error: "Only the comment's author can edit it.", code: 'forbidden' },
    ]);
    const edited = await h.t.request('PUT', `/discussion-comments/${c.id}`, {
      token: member.token,
      body: { body: ' second ' },
    });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({
      id: c.id,
      body: 'second',
      createdAt: c.createdAt,
      depth: 1,
    });
    await h.t.request('DELETE', `/discussion-comments/${c.id}`, { token: member.token });
    const afterDelete = await h.t.request('PUT', `/discussion-comments/${c.id}`, {
      token: member.token,
      body: { body: 'again' },
    });
    expect(afterDelete).toMatchObject({
      status: 404,
      body: { error: 'Discussion comment not found' },
    });
  });

  it('tombstones on delete, keeps replies attached, is idempotent and refuses replies to the tombstone', async () => {
    const col = await h.collection();
    const member = await h.user({ collectionAccess: [col.id] });
    const root = await h.comment(`/collections/${col.id}`, 'root', member.token);
    const reply = await h.reply(root.id, 'child');
    const first = await h.t.request('DELETE', `/discussion-comments/${root.id}`, {
      token: member.token,
    });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      id: root.id,
      tombstoned: true,
      body: null,
      encryptedPayload: null,
      depth: 1,
    });
    const second = await h.t.request('DELETE', `/discussion-comments/${root.id}`, {
      token: member.token,
    });
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    const listed = (await h.list(`/collections/${col.id}`)).body.comments;
    expect(listed.map((x: any) => [x.id, x.tombstoned, x.parentCommentId])).toEqual([
      [root.id, true, null],
      [reply.id, false, root.id],
    ]);
    const refused = await h.t.request('POST', `/discussion-comments/${root.id}/replies`, {
      body: { body: 'late' },
    });
    expect(refused).toMatchObject({
      status: 400,
      body: { error: 'Cannot reply to a deleted comment' },
    });
  });

  it('lets an admin delete any comment but refuses other users with 403', async () => {
    const col = await h.collection();
    const author = await h.user({ collectionAccess: [col.id] });
    const other = await h.user({ collectionAccess: [col.id] });
    const c = await h.comment(`/collections/${col.id}`, 'x', author.token);
    expect(
      (await h.t.request('DELETE', `/discussion-comments/${c.id}`, { token: other.token })).status,
    ).toBe(403);
    const byAdmin = await h.t.request('DELETE', `/discussion-comments/${c.id}`);
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body.tombstoned).toBe(true);
    expect(
      (await h.t.request('DELETE', `/discussion-comments/${crypto.randomUUID()}`)).status,
    ).toBe(404);
  });

  it('shows a deleted author as Unknown user without an avatar', async () => {
    const col = await h.collection();
    const gone = await h.user({ collectionAccess: [col.id] });
    const c = await h.comment(`/collections/${col.id}`, 'bye', gone.token);
    await h.t.store().table(usersTable).delete(gone.id);
    const [listed] = (await h.list(`/collections/${col.id}`)).body.comments;
    expect(listed.id).toBe(c.id);
    expect(listed.author).toEqual({ id: gone.id, name: 'Unknown user' });
  });

  it('refuses malformed bodies with a 400 that names the field', async () => {
    const col = await h.collection();
    const path = `/collections/${col.id}/discussions`;
    const cases: [unknown, RegExp][] = [
      [{ body: '   ' }, /^body: Comment body is required$/],
      [{}, /^body: Comment body is required$/],
      [{ body: 42 }, /^body: /],
      [{ body: ['x'] }, /^body: /],
      [{ body: 'a\u0000b' }, /^body: /],
      [{ body: 'x'.repeat(65_537) }, /^body: .*65536/],
      [[1, 2], /^Request body: /],
      ['text', /^Request body: /],
      [null, /^Request body: /],
      [
        { body: 'x', encryptedPayload: { ciphertext: 'abc' } },
        /^Encrypted discussion payloads are only accepted on E2EE-enabled Team Hubs$/,
      ],
    ];
    for (const [body, message] of cases) {
      const res = await h.t.request('POST', path, { body });
      expect(res.status, JSON.stringify(body)?.slice(0, 80)).toBe(400);
      expect(res.body.error).toMatch(message);
    }
    expect((await h.t.request('POST', path, { rawBody: '{"body":' })).status).toBe(400);
    const root = await h.comment(`/collections/${col.id}`);
    expect(
      (await h.t.request('PUT', `/discussion-comments/${root.id}`, { body: { body: '' } })).body
        .error,
    ).toBe('body: Comment body is required');
    expect(
      (await h.t.request('POST', `/discussion-comments/${root.id}/replies`, { body: { body: {} } }))
        .status,
    ).toBe(400);
    expect(
      (await h.t.request('PUT', `/discussion-comments/${'y'.repeat(300)}`, { body: { body: 'x' } }))
        .status,
    ).toBe(404);
  });
});
