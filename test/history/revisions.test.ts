/**
 * Revisions: every change keeps a version (concurrent edits by two users included), listed newest
 * first with paging, readable as the record was; restore to an older revision; undelete with the
 * same id and place; the trash; access and tenant isolation; who asked for each grouped create.
 */
import { describe, expect, it } from 'vitest';
import { allDrivers } from '../helpers/drivers.ts';
import { EVERY_ENTITY, fixtures, TOP_LEVEL_ENTITIES } from '../helpers/fixtures.ts';
import { uniqueName, useTestHub } from '../helpers/hub.ts';

describe.each(allDrivers())('revisions on %s', (driver) => {
  const t = useTestHub(driver, { config: { multitenancy: { enabled: true } } });
  const h = fixtures(t);
  const revisions = async (path: string, token?: string) => {
    const res = await t.request('GET', `${path}/revisions?limit=100`, token ? { token } : {});
    expect(res.status, res.text).toBe(200);
    return res.body.revisions as any[];
  };

  it('keeps every version of concurrent edits by two users, newest first', async () => {
    const [alice, bob] = [await h.user(EVERY_ENTITY), await h.user(EVERY_ENTITY)];
    const col = await h.collection();
    const req = await h.request(col.id, {}, alice.token);
    const edits = Array.from({ length: 8 }, (_, i) =>
      t.request('PUT', `/requests/${req.id}`, {
        token: i % 2 ? bob.token : alice.token,
        body: { collectionId: col.id, url: `https://x.test/${i}` },
      }),
    );
    for (const res of await Promise.all(edits)) expect(res.status, res.text).toBe(200);
    const list = await revisions(`/requests/${req.id}`);
    expect(list.map((r) => r.version)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1]);
    expect(list.at(-1)).toMatchObject({ action: 'created', actor: { id: alice.id } });
    expect(new Set(list.slice(0, 8).map((r) => r.actor.id))).toEqual(new Set([alice.id, bob.id]));
    const urls = new Set<string>();
    for (const revision of list.slice(0, 8)) {
      const res = await t.request('GET', `/requests/${req.id}/revisions/${revision.id}`);
      expect(res.status).toBe(200);
      expect(res.body.revision).toEqual(revision);
      urls.add(res.body.record.url);
    }
    expect(urls.size).toBe(8);
    const now = await t.request('GET', `/requests/${req.id}`);
    expect(now.headers.get('etag')).toBe('"9"');
  });

  it('keeps created, updated, deleted and restored revisions and audit events for every kind', async () => {
    const col = await h.collection();
    const inCollection = (kind: 'request' | 'document') => ({
      kind,
      prefix: `${kind}s`,
      make: () => h[kind](col.id),
      update: ['PUT', { collectionId: col.id, name: uniqueName('renamed') }] as const,
    });
    const kinds = [
      inCollection('request'),
      inCollection('document'),
      {
        kind: 'folder',
        prefix: 'folders',
        make: () => h.folder(col.id),
        update: ['PATCH', { name: uniqueName('renamed') }] as const,
      },
      ...TOP_LEVEL_ENTITIES.map(({ path, noun }) => ({
        kind: noun.replace(' ', '-'),
        prefix: path.slice(1),
        make: () => h.create(path, { name: uniqueName(noun) }),
        update: ['PUT', { name: uniqueName('renamed') }] as const,
      })),
    ];
    expect(kinds.map((k) => k.prefix)).toEqual([
      'requests',
      'documents',
      'folders',
      'collections',
      'environments',
      'snippets',
      'live-servers',
      'live-pages',
    ]);
    for (const { kind, prefix, make, update } of kinds) {
      const record = await make();
      const path = `/${prefix}/${record.id}`;
      const [method, body] = update;
      expect((await t.request(method, path, { body })).status, `${method} ${path}`).toBe(200);
      expect((await t.request('DELETE', path)).status, `DELETE ${path}`).toBe(204);
      const kept = await revisions(path);
      expect(
        kept.map((r) => [r.version, r.action]),
        prefix,
      ).toEqual([
        [3, 'deleted'],
        [2, 'updated'],
        [1, 'created'],
      ]);
      const back = await t.request('POST', `${path}/revisions/${kept[0].id}/restore`);
      expect(back.status, `${prefix}: ${back.text}`).toBe(200);
      expect(back.body).toMatchObject({ id: record.id, name: body.name });
      expect((await revisions(path))[0]).toMatchObject({ version: 4, action: 'restored' });
      const audit = await t.request('GET', `/admin/audit?targetId=${record.id}`);
      expect(audit.body.events.map((e: any) => e.action)).toEqual(
        ['restored', 'deleted', 'updated', 'created'].map((action) => `${kind}.${action}`),
      );
    }
  });

  it('pages revisions with a cursor and refuses a cursor it did not issue', async () => {
    const col = await h.collection();
    const doc = await h.document(col.id);
    for (let i = 0; i < 4; i++)
      await t.request('PUT', `/documents/${doc.id}`, {
        body: { collectionId: col.id, content: `v${i + 2}` },
      });
    const first = await t.request('GET', `/documents/${doc.id}/revisions?limit=2`);
    expect(first.body.revisions.map((r: any) => r.version)).toEqual([5, 4]);
    const second = await t.request(
      'GET',
      `/documents/${doc.id}/revisions?limit=2&cursor=${first.body.nextCursor}`,
    );
    expect(second.body.revisions.map((r: any) => r.version)).toEqual([3, 2]);
    const last = await t.request(
      'GET',
      `/documents/${doc.id}/revisions?limit=2&cursor=${second.body.nextCursor}`,
    );
    expect(last.body).toEqual({ revisions: [expect.objectContaining({ version: 1 })] });
    const bad = await t.request('GET', `/documents/${doc.id}/revisions?cursor=x`);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/cursor/);
  });

  it('restores an older revision as a new "restored" revision, keeping its place', async () => {
    const col = await h.collection();
    const folder = await h.folder(col.id);
    const req = await h.request(col.id, { url: 'https://one.test', folderId: folder.id });
    await t.request('PUT', `/requests/${req.id}`, {
      body: { collectionId: col.id, url: 'https://two.test', name: 'renamed' },
    });
    const created = (await revisions(`/requests/${req.id}`)).at(-1);
    const res = await t.request('POST', `/requests/${req.id}/revisions/${created.id}/restore`);
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('etag')).toBe('"3"');
    expect(res.body).toMatchObject({ id: req.id, url: 'https://one.test', name: req.name });
    expect(res.body.folderId).toBe(folder.id);
    expect((await revisions(`/requests/${req.id}`))[0]).toMatchObject({
      version: 3,
      action: 'restored',
    });
  });

  it('undeletes with the same id, folder and position; the trash lists it until then', async () => {
    const col = await h.collection();
    const folder = await h.folder(col.id);
    const [a, b, c] = [
      await h.request(col.id, { folderId: folder.id }),
      await h.request(col.id, { folderId: folder.id }),
      await h.request(col.id, { folderId: folder.id }),
    ];
    expect((await t.request('DELETE', `/requests/${b.id}`)).status).toBe(204);
    const trash = await t.request('GET', `/collections/${col.id}/trash`);
    expect(trash.body.items).toEqual([
      {
        kind: 'request',
        id: b.id,
        name: b.name,
        deletedAt: expect.any(String),
        deletedBy: { id: t.adminId, name: expect.any(String) },
      },
    ]);
    const [deleted] = await revisions(`/requests/${b.id}`);
    expect(deleted).toMatchObject({ action: 'deleted', version: 2 });
    const read = await t.request('GET', `/requests/${b.id}/revisions/${deleted.id}`);
    expect(read.body.record).toMatchObject({ id: b.id, name: b.name });
    const back = await t.request('POST', `/requests/${b.id}/revisions/${deleted.id}/restore`);
    expect(back.status, back.text).toBe(200);
    expect(back.body).toMatchObject({ id: b.id, folderId: folder.id, sortOrder: b.sortOrder });
    const listed = await t.request('GET', `/collections/${col.id}/requests`);
    expect(listed.body.requests.map((r: any) => r.id)).toEqual([a.id, b.id, c.id]);
    expect((await t.request('GET', `/collections/${col.id}/trash`)).body.items).toEqual([]);
    // Undone once: restoring the deletion again is a 409, and writes nothing.
    const again = await t.request('POST', `/requests/${b.id}/revisions/${deleted.id}/restore`);
    expect(again.status, again.text).toBe(409);
    expect(again.body.error).toMatch(/deletion was undone already/);
    expect((await revisions(`/requests/${b.id}`)).map((r: any) => r.action)).toEqual([
      'restored',
      'deleted',
      'created',
    ]);
  });

  it('brings a folder back with everything its deletion removed', async () => {
    const col = await h.collection();
    const folder = await h.folder(col.id);
    const inner = await h.folder(col.id, { parentFolderId: folder.id });
    const req = await h.request(col.id, { folderId: inner.id });
    const doc = await h.document(col.id, { folderId: folder.id });
    expect((await t.request('DELETE', `/folders/${folder.id}`)).status).toBe(204);
    const trash = (await t.request('GET', `/collections/${col.id}/trash`)).body.items;
    expect(trash.map((i: any) => [i.kind, i.id])).toEqual([['folder', folder.id]]);
    const [deleted] = await revisions(`/folders/${folder.id}`);
    const res = await t.request('POST', `/folders/${folder.id}/revisions/${deleted.id}/restore`);
    expect(res.status, res.text).toBe(200);
    const folders = (await t.request('GET', `/collections/${col.id}/folders`)).body.folders;
    expect(folders.map((f: any) => [f.id, f.parentFolderId])).toEqual([
      [folder.id, null],
      [inner.id, folder.id],
    ]);
    const requests = (await t.request('GET', `/collections/${col.id}/requests`)).body.requests;
    expect(requests.map((r: any) => [r.id, r.folderId])).toEqual([[req.id, inner.id]]);
    const docs = (await t.request('GET', `/collections/${col.id}/documents`)).body.documents;
    expect(docs.map((d: any) => [d.id, d.folderId])).toEqual([[doc.id, folder.id]]);
    expect((await revisions(`/requests/${req.id}`))[0].action).toBe('restored');
  });

  it('undeletes into the collection root when the folder is gone, and 409s when the collection is', async () => {
    const col = await h.collection();
    const folder = await h.folder(col.id);
    const req = await h.request(col.id, { folderId: folder.id });
    await t.request('DELETE', `/requests/${req.id}`);
    await t.request('DELETE', `/folders/${folder.id}`);
    const [deleted] = await revisions(`/requests/${req.id}`);
    const back = await t.request('POST', `/requests/${req.id}/revisions/${deleted.id}/restore`);
    expect(back.status, back.text).toBe(200);
    expect(back.body.folderId).toBeNull();
    await t.request('DELETE', `/requests/${req.id}`);
    expect((await t.request('DELETE', `/collections/${col.id}`)).status).toBe(204);
    const [again] = await revisions(`/requests/${req.id}`);
    const gone = await t.request('POST', `/requests/${req.id}/revisions/${again.id}/restore`);
    expect(gone.status).toBe(409);
    expect(gone.body.error).toMatch(/collection/);
    // The collection itself comes back with its contents.
    const [colDeleted] = await revisions(`/collections/${col.id}`);
    const col2 = await t.request(
      'POST',
      `/collections/${col.id}/revisions/${colDeleted.id}/restore`,
    );
    expect(col2.status, col2.text).toBe(200);
    expect((await t.request('GET', `/collections/${col.id}/trash`)).body.items).toEqual([
      expect.objectContaining({ kind: 'request', id: req.id }),
      expect.objectContaining({ kind: 'folder', id: folder.id }),
    ]);
  });

  it.each(TOP_LEVEL_ENTITIES)('keeps $noun revisions and undeletes one', async ({ path }) => {
    const made = await h.create(path, { name: uniqueName('top') });
    const renamed = await t.request('PUT', `${path}/${made.id}`, { body: { name: 'renamed' } });
    expect(renamed.headers.get('etag')).toBe('"2"');
    expect((await t.request('DELETE', `${path}/${made.id}`)).status).toBe(204);
    const list = await revisions(`${path}/${made.id}`);
    expect(list.map((r) => r.action)).toEqual(['deleted', 'updated', 'created']);
    const back = await t.request('POST', `${path}/${made.id}/revisions/${list[1].id}/restore`);
    expect(back.status, back.text).toBe(200);
    expect(back.body).toMatchObject({ id: made.id, name: 'renamed' });
  });

  it('keeps revisions and the trash from users without access to the collection, and from other tenants', async () => {
    const col = await h.collection();
    const req = await h.request(col.id);
    await t.request('DELETE', `/requests/${req.id}`);
    const [deleted] = await revisions(`/requests/${req.id}`);
    const outsider = await h.user({ collectionAccess: [] });
    for (const [method, path] of [
      ['GET', `/requests/${req.id}/revisions`],
      ['GET', `/requests/${req.id}/revisions/${deleted.id}`],
      ['POST', `/requests/${req.id}/revisions/${deleted.id}/restore`],
      ['GET', `/collections/${col.id}/trash`],
      ['GET', `/collections/${col.id}/revisions`],
    ] as const)
      expect([path, (await t.request(method, path, { token: outsider.token })).status]).toEqual([
        path,
        403,
      ]);
    const tenant = uniqueName('tenant')
      .replace(/[^A-Za-z0-9_-]/g, '')
      .slice(0, 60);
    await t.hub.identity.tenants.create(tenant, 'Other');
    const foreign = await t.createUser({ role: 'admin' }, tenant);
    for (const path of [`/requests/${req.id}/revisions`, `/collections/${col.id}/trash`])
      expect((await t.request('GET', path, { token: foreign.token, tenant })).status).toBe(404);
  });

  it('names in each event of a grouped create the request that asked for it', async () => {
    const [alice, bob] = [await h.user(EVERY_ENTITY), await h.user(EVERY_ENTITY)];
    const col = await h.collection();
    // Creates into one container that arrive together are written by one transaction.
    const created = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        t.request('POST', `/collections/${col.id}/requests`, {
          token: i % 2 ? bob.token : alice.token,
          headers: { 'x-request-id': `grouped-create-${i}` },
          body: { name: `r${i}` },
        }),
      ),
    );
    const nameOf = async (id: string) => (await t.hub.identity.users.get(t.store(), id))!.name;
    const names = [await nameOf(alice.id), await nameOf(bob.id)];
    for (const [i, res] of created.entries()) {
      expect(res.status, res.text).toBe(200);
      const audit = await t.request('GET', `/admin/audit?targetId=${res.body.id}`);
      expect(audit.body.events).toEqual([
        expect.objectContaining({
          action: 'request.created',
          actor: { id: (i % 2 ? bob : alice).id, name: names[i % 2] },
          requestId: `grouped-create-${i}`,
          target: { kind: 'request', id: res.body.id, name: `r${i}` },
          details: { version: 1 },
        }),
      ]);
    }
  });
});
