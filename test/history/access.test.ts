/**
 * Who may see and restore what history keeps: a revision is judged by the collection it was
 * written in (a request or document moved between collections by a member of both keeps its past
 * from a member of the new collection only), and undoing a deletion takes the rights the deletion
 * took (an admin's only by an admin; a top-level record by who may create one or delete this one),
 * with the deletion lock it had.
 */
import { describe, expect, it } from 'vitest';
import { allDrivers } from '../helpers/drivers.ts';
import { fixtures, TOP_LEVEL_ENTITIES } from '../helpers/fixtures.ts';
import { uniqueName, useTestHub } from '../helpers/hub.ts';

const bearer = (token: string) => ({
  type: 'bearer',
  basic: { username: '', password: '' },
  bearer: { token },
});

describe.each(allDrivers())('history across collections on %s', (driver) => {
  const t = useTestHub(driver);
  const h = fixtures(t);

  /** Collections C1 and C2, a member of both (who moves) and a member of C1 only. */
  async function twoCollections() {
    const [c1, c2] = [await h.collection(), await h.collection()];
    const mover = await h.user({ collectionAccess: [c1.id, c2.id] });
    const reader = await h.user({ collectionAccess: [c1.id] });
    return { c1, c2, mover, reader };
  }

  it('keeps what a request held in its old collection from members of its new one only', async () => {
    const { c1, c2, mover, reader } = await twoCollections();
    const req = await h.request(c2.id, { auth: bearer('PROD-SECRET') }, mover.token);
    const put = (body: object) =>
      t.request('PUT', `/requests/${req.id}`, { token: mover.token, body });
    expect((await put({ collectionId: c2.id, auth: bearer('') })).status).toBe(200);
    expect((await put({ collectionId: c1.id })).status).toBe(200);
    for (let i = 0; i < 2; i++)
      expect((await put({ collectionId: c1.id, url: `https://c1.test/${i}` })).status).toBe(200);
    const list = async (token: string, query = '') => {
      const res = await t.request('GET', `/requests/${req.id}/revisions${query}`, { token });
      expect(res.status, res.text).toBe(200);
      return res.body;
    };
    const all = (await list(mover.token)).revisions;
    expect(all.map((r: any) => r.version)).toEqual([5, 4, 3, 2, 1]);
    const [v1, v2] = [all[4], all[3]];
    // The reader sees what was written in C1 (the move onwards), paged as if nothing else existed.
    const first = await list(reader.token, '?limit=2');
    expect(first.revisions.map((r: any) => r.version)).toEqual([5, 4]);
    const second = await list(reader.token, `?limit=2&cursor=${first.nextCursor}`);
    expect(second).toEqual({ revisions: [expect.objectContaining({ version: 3 })] });
    for (const revision of [v1, v2]) {
      const path = `/requests/${req.id}/revisions/${revision.id}`;
      expect((await t.request('GET', path, { token: reader.token })).status).toBe(403);
      const restore = await t.request('POST', `${path}/restore`, { token: reader.token });
      expect(restore.status).toBe(403);
    }
    const now = await t.request('GET', `/requests/${req.id}`, { token: reader.token });
    expect(now.body).toMatchObject({ collectionId: c1.id, auth: bearer('') });
    expect(now.text).not.toContain('PROD-SECRET');
    // The member of both still reads and restores it (into C1, where the request is now).
    const old = await t.request('GET', `/requests/${req.id}/revisions/${v1.id}`, {
      token: mover.token,
    });
    expect(old.body.record).toMatchObject({ collectionId: c2.id, auth: bearer('PROD-SECRET') });
    // Every read of an old revision is in the audit log, with who read which.
    const audit = await t.request('GET', `/admin/audit?action=revision.read&targetId=${req.id}`);
    expect(audit.body.events).toEqual([
      expect.objectContaining({
        action: 'revision.read',
        actor: expect.objectContaining({ id: mover.id }),
        target: { kind: 'request', id: req.id, name: req.name },
        details: { revisionId: v1.id, version: 1 },
      }),
    ]);
    const back = await t.request('POST', `/requests/${req.id}/revisions/${v1.id}/restore`, {
      token: mover.token,
    });
    expect(back.status, back.text).toBe(200);
    expect(back.body).toMatchObject({ collectionId: c1.id, auth: bearer('PROD-SECRET') });
  });

  it('keeps what a document held in its old collection from members of its new one only', async () => {
    const { c1, c2, mover, reader } = await twoCollections();
    const doc = await h.document(c2.id, { content: 'PROD-SECRET' }, mover.token);
    const put = (body: object) =>
      t.request('PUT', `/documents/${doc.id}`, { token: mover.token, body });
    expect((await put({ collectionId: c2.id, content: 'scrubbed' })).status).toBe(200);
    expect((await put({ collectionId: c1.id })).status).toBe(200);
    const listed = await t.request('GET', `/documents/${doc.id}/revisions`, {
      token: reader.token,
    });
    expect(listed.body.revisions.map((r: any) => r.version)).toEqual([3]);
    const all = await t.request('GET', `/documents/${doc.id}/revisions`, { token: mover.token });
    const v1 = all.body.revisions.at(-1);
    const path = `/documents/${doc.id}/revisions/${v1.id}`;
    expect((await t.request('GET', path, { token: reader.token })).status).toBe(403);
    expect((await t.request('POST', `${path}/restore`, { token: reader.token })).status).toBe(403);
    const now = await t.request('GET', `/documents/${doc.id}`, { token: reader.token });
    expect(now.body.content).toBe('scrubbed');
  });
});

describe.each(allDrivers())('undelete rules on %s', (driver) => {
  const t = useTestHub(driver);
  const h = fixtures(t);
  const revisionsOf = async (path: string) =>
    (await t.request('GET', `${path}/revisions`)).body.revisions as any[];

  it.each(TOP_LEVEL_ENTITIES)(
    "undoes an admin's deletion of a locked $noun only as an admin, and brings it back locked",
    async ({ path, field }) => {
      const made = await h.create(path, { name: uniqueName('locked') });
      const locked = await t.request('PUT', `/admin${path}/${made.id}`, {
        body: { deletionLocked: true },
      });
      expect(locked.status, locked.text).toBe(200);
      const member = await h.user({ [field]: [made.id] });
      expect((await t.request('DELETE', `/admin${path}/${made.id}`)).status).toBe(204);
      const [deleted, , created] = await revisionsOf(`${path}/${made.id}`);
      expect(deleted.action).toBe('deleted');
      expect(created.action).toBe('created');
      for (const revision of [deleted, created]) {
        const res = await t.request('POST', `${path}/${made.id}/revisions/${revision.id}/restore`, {
          token: member.token,
        });
        expect(res.status, res.text).toBe(403);
        expect(res.body.error).toMatch(/admin/);
      }
      // Restoring its first revision keeps the lock it had when deleted.
      const back = await t.request('POST', `${path}/${made.id}/revisions/${created.id}/restore`);
      expect(back.status, back.text).toBe(200);
      const listed = await t.request('GET', `/admin${path}`);
      const key = Object.keys(listed.body)[0]!;
      expect(listed.body[key].find((row: any) => row.id === made.id)).toMatchObject({
        deletionLocked: true,
      });
    },
  );

  it("keeps a collection's contents deleted with it until an admin undoes the admin's deletion", async () => {
    const col = await h.collection();
    const req = await h.request(col.id);
    const member = await h.user({ collectionAccess: [col.id] });
    expect((await t.request('DELETE', `/admin/collections/${col.id}`)).status).toBe(204);
    const [deleted] = await revisionsOf(`/collections/${col.id}`);
    const path = `/collections/${col.id}/revisions/${deleted.id}/restore`;
    expect((await t.request('POST', path, { token: member.token })).status).toBe(403);
    expect((await t.request('GET', `/requests/${req.id}`)).status).toBe(404);
    expect((await t.request('POST', path)).status).toBe(200);
    expect((await t.request('GET', `/requests/${req.id}`)).status).toBe(200);
  });

  it('lets a member undo a deletion they could have made, and no one else but who may create', async () => {
    const alice = await h.user({ environmentAccess: ['*'], collectionAccess: ['*'] });
    const env = await h.create('/environments', { name: uniqueName('env') }, alice.token);
    const col = await h.create('/collections', { name: uniqueName('col') }, alice.token);
    const bob = await h.user({ environmentAccess: [env.id], collectionAccess: [col.id] });
    for (const path of [`/environments/${env.id}`, `/collections/${col.id}`])
      expect((await t.request('DELETE', path, { token: alice.token })).status).toBe(204);
    const restore = async (path: string, token: string) => {
      const [deleted] = await revisionsOf(path);
      return t.request('POST', `${path}/revisions/${deleted.id}/restore`, { token });
    };
    // Bob may delete the environment (it is in his list), not the collection (not his creation).
    const colBack = await restore(`/collections/${col.id}`, bob.token);
    expect(colBack.status).toBe(403);
    expect(colBack.body.error).toMatch(/creator/);
    expect((await restore(`/environments/${env.id}`, bob.token)).status).toBe(200);
    expect((await restore(`/collections/${col.id}`, alice.token)).status).toBe(200);
  });

  it("undoes an admin's deletion of a saved request only as an admin", async () => {
    const col = await h.collection();
    const member = await h.user({ collectionAccess: [col.id] });
    const req = await h.request(col.id, {}, member.token);
    expect((await t.request('DELETE', `/admin/requests/${req.id}`)).status).toBe(204);
    const [deleted] = await revisionsOf(`/requests/${req.id}`);
    const path = `/requests/${req.id}/revisions/${deleted.id}/restore`;
    expect((await t.request('POST', path, { token: member.token })).status).toBe(403);
    expect((await t.request('POST', path)).status).toBe(200);
  });
});
