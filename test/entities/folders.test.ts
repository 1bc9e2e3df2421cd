/** Folders: nesting, order, reorder and move (all-or-nothing), and cascading deletes. */
import { describe, expect, it } from 'vitest';
import { allDrivers } from '../helpers/drivers.ts';
import { useTestHub } from '../helpers/hub.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { assertShape, folderShape } from './desktop-shapes.ts';

describe.each(allDrivers())('folders on %s', (driver) => {
  const h = fixtures(useTestHub(driver));

  const folders = async (collectionId: string) =>
    (await h.t.request('GET', `/collections/${collectionId}/folders`)).body.folders as any[];
  const childIds = async (collectionId: string, parentFolderId: string | null) =>
    (await folders(collectionId))
      .filter((f) => f.parentFolderId === parentFolderId)
      .map((f) => f.id);

  it('creates folders last among their siblings, nested under a parent of the same collection', async () => {
    const col = await h.collection();
    const a = await h.folder(col.id);
    const b = await h.folder(col.id);
    const inner = await h.folder(col.id, { parentFolderId: a.id });
    assertShape(folderShape, inner);
    expect([a.sortOrder, b.sortOrder, inner.sortOrder]).toEqual([0, 1, 0]);
    expect(inner).toMatchObject({
      collectionId: col.id,
      parentFolderId: a.id,
      createdByUserId: h.t.adminId,
    });
    const other = await h.collection();
    const foreign = await h.t.request('POST', `/collections/${other.id}/folders`, {
      body: { name: 'x', parentFolderId: a.id },
    });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toBe('Parent folder not found in collection');
  });

  it('answers a folder request under an unknown collection with 404, never 500', async () => {
    const id = crypto.randomUUID();
    expect(
      (await h.t.request('POST', `/collections/${id}/folders`, { body: { name: 'x' } })).status,
    ).toBe(404);
    expect((await h.t.request('GET', `/collections/${id}/folders`)).status).toBe(404);
    expect(
      (
        await h.t.request('PUT', `/collections/${id}/folders/reorder`, {
          body: { orderedFolderIds: [] },
        })
      ).status,
    ).toBe(404);
  });

  it('renames a folder with PATCH, trimming the name and keeping the marker unless sent', async () => {
    const col = await h.collection();
    const folder = await h.folder(col.id, { marker: 'red' });
    const res = await h.t.request('PATCH', `/folders/${folder.id}`, {
      body: { name: '  Renamed ' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'Renamed', marker: 'red', sortOrder: folder.sortOrder });
    expect(
      (await h.t.request('PATCH', `/folders/${crypto.randomUUID()}`, { body: { name: 'x' } }))
        .status,
    ).toBe(404);
    expect(
      (await h.t.request('PATCH', `/folders/${folder.id}`, { body: { name: '' } })).status,
    ).toBe(400);
  });

  it('refuses a PATCH without a name with 400 naming name, and changes nothing', async () => {
    const col = await h.collection();
    const folder = await h.folder(col.id, { marker: 'red' });
    for (const body of [{}, { marker: 'blue' }]) {
      const res = await h.t.request('PATCH', `/folders/${folder.id}`, { body });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/^name: /);
    }
    expect((await folders(col.id)).find((f: { id: string }) => f.id === folder.id)).toMatchObject({
      name: folder.name,
      marker: 'red',
    });
  });

  it('reorders root folders with or without the desktop parentFolderId', async () => {
    const col = await h.collection();
    const [a, b, c] = [await h.folder(col.id), await h.folder(col.id), await h.folder(col.id)];
    const spec = await h.t.request('PUT', `/collections/${col.id}/folders/reorder`, {
      body: { orderedFolderIds: [c.id, a.id, b.id] },
    });
    expect(spec.status).toBe(204);
    expect(await childIds(col.id, null)).toEqual([c.id, a.id, b.id]);
    const desktop = await h.t.request('PUT', `/collections/${col.id}/folders/reorder`, {
      body: { parentFolderId: null, orderedFolderIds: [b.id, c.id, a.id] },
    });
    expect(desktop.status).toBe(204);
    expect((await folders(col.id)).map((f) => [f.id, f.sortOrder])).toEqual([
      [b.id, 0],
      [c.id, 1],
      [a.id, 2],
    ]);
  });

  it('reorders nested folders and keeps unlisted siblings after the listed ones', async () => {
    const col = await h.collection();
    const parent = await h.folder(col.id);
    const [x, y, z] = [
      await h.folder(col.id, { parentFolderId: parent.id }),
      await h.folder(col.id, { parentFolderId: parent.id }),
      await h.folder(col.id, { parentFolderId: parent.id }),
    ];
    const res = await h.t.request('PUT', `/collections/${col.id}/folders/reorder`, {
      body: { parentFolderId: parent.id, orderedFolderIds: [z.id] },
    });
    expect(res.status).toBe(204);
    expect(await childIds(col.id, parent.id)).toEqual([z.id, x.id, y.id]);
  });

  it('refuses a reorder naming a duplicated folder or one under another parent with 400, and changes nothing', async () => {
    const col = await h.collection();
    const [a, b] = [await h.folder(col.id), await h.folder(col.id)];
    const nested = await h.folder(col.id, { parentFolderId: a.id });
    const before = await folders(col.id);
    for (const orderedFolderIds of [
      [b.id, a.id, b.id],
      [b.id, nested.id],
    ]) {
      const res = await h.t.request('PUT', `/collections/${col.id}/folders/reorder`, {
        body: { parentFolderId: null, orderedFolderIds },
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/^orderedFolderIds: /);
    }
    expect(await folders(col.id)).toEqual(before);
  });

  it('answers 404 to a reorder naming an unknown folder or a folder of another collection, and changes nothing', async () => {
    const [col, other] = [await h.collection(), await h.collection()];
    const b = await h.folder(col.id);
    const foreign = await h.folder(other.id);
    const before = await folders(col.id);
    for (const missing of [crypto.randomUUID(), foreign.id]) {
      for (const body of [
        { parentFolderId: null, orderedFolderIds: [b.id, missing] },
        { orderedFolderIds: [missing, b.id] },
      ]) {
        const res = await h.t.request('PUT', `/collections/${col.id}/folders/reorder`, { body });
        expect([res.status, res.body]).toEqual([
          404,
          { error: `Folder not found: ${missing}`, code: 'not_found' },
        ]);
      }
    }
    expect(await folders(col.id)).toEqual(before);
    expect(await folders(other.id)).toHaveLength(1);
  });

  it('moves a folder under another parent at a position and re-indexes both parents', async () => {
    const col = await h.collection();
    const [a, b, c] = [await h.folder(col.id), await h.folder(col.id), await h.folder(col.id)];
    const [x, y] = [
      await h.folder(col.id, { parentFolderId: c.id }),
      await h.folder(col.id, { parentFolderId: c.id }),
    ];
    const res = await h.t.request('PUT', `/folders/${a.id}/move`, {
      body: { parentFolderId: c.id, sortOrder: 1 },
    });
    expect(res.status).toBe(200);
    assertShape(folderShape, res.body);
    expect(res.body).toMatchObject({ id: a.id, parentFolderId: c.id, sortOrder: 1 });
    const all = await folders(col.id);
    const order = (parent: string | null) =>
      all.filter((f) => f.parentFolderId === parent).map((f) => [f.id, f.sortOrder]);
    expect(order(c.id)).toEqual([
      [x.id, 0],
      [a.id, 1],
      [y.id, 2],
    ]);
    expect(order(null)).toEqual([
      [b.id, 0],
      [c.id, 1],
    ]);
    const back = await h.t.request('PUT', `/folders/${a.id}/move`, {
      body: { parentFolderId: null },
    });
    expect(back.body).toMatchObject({ parentFolderId: null, sortOrder: 2 });
  });

  it('never moves a folder into itself or its own subtree', async () => {
    const col = await h.collection();
    const top = await h.folder(col.id);
    const mid = await h.folder(col.id, { parentFolderId: top.id });
    const low = await h.folder(col.id, { parentFolderId: mid.id });
    for (const target of [top.id, mid.id, low.id]) {
      const res = await h.t.request('PUT', `/folders/${top.id}/move`, {
        body: { parentFolderId: target },
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/^parentFolderId: /);
    }
    expect(
      (await h.t.request('PUT', `/folders/${top.id}/move`, { body: { sortOrder: 0 } })).status,
    ).toBe(400);
    expect(
      (
        await h.t.request('PUT', `/folders/${top.id}/move`, {
          body: { parentFolderId: crypto.randomUUID() },
        })
      ).status,
    ).toBe(404);
    expect((await folders(col.id)).find((f) => f.id === top.id).parentFolderId).toBeNull();
  });

  it('deletes a folder with its sub-folders, requests and documents, and nothing else', async () => {
    const col = await h.collection();
    const doomed = await h.folder(col.id);
    const sub = await h.folder(col.id, { parentFolderId: doomed.id });
    const kept = await h.folder(col.id);
    const r1 = await h.request(col.id, { folderId: doomed.id });
    const r2 = await h.request(col.id, { folderId: sub.id });
    const d1 = await h.document(col.id, { folderId: sub.id });
    const r3 = await h.request(col.id, { folderId: kept.id });
    const root = await h.document(col.id);
    expect((await h.t.request('DELETE', `/folders/${doomed.id}`)).status).toBe(204);
    expect((await folders(col.id)).map((f) => f.id)).toEqual([kept.id]);
    expect(await h.listIds(`/collections/${col.id}/requests`, 'requests')).toEqual([r3.id]);
    expect(await h.listIds(`/collections/${col.id}/documents`, 'documents')).toEqual([root.id]);
    expect(
      (await h.t.request('PUT', `/requests/${r1.id}`, { body: { collectionId: col.id } })).status,
    ).toBe(404);
    expect((await h.t.request('DELETE', `/requests/${r2.id}`)).status).toBe(404);
    expect((await h.t.request('DELETE', `/documents/${d1.id}`)).status).toBe(404);
    expect((await h.t.request('DELETE', `/folders/${doomed.id}`)).status).toBe(404);
  });

  it('deletes a collection with everything inside it', async () => {
    const col = await h.collection();
    const folder = await h.folder(col.id);
    await h.folder(col.id, { parentFolderId: folder.id });
    const request = await h.request(col.id, { folderId: folder.id });
    await h.document(col.id);
    const survivor = await h.collection();
    const other = await h.request(survivor.id);
    expect((await h.t.request('DELETE', `/collections/${col.id}`)).status).toBe(204);
    expect((await h.t.request('GET', `/admin/collections/${col.id}/folders`)).status).toBe(404);
    expect(
      (await h.t.request('PATCH', `/folders/${folder.id}`, { body: { name: 'x' } })).status,
    ).toBe(404);
    expect((await h.t.request('DELETE', `/admin/requests/${request.id}`)).status).toBe(404);
    expect(await h.listIds(`/collections/${survivor.id}/requests`, 'requests')).toEqual([other.id]);
  });

  it('lets admins inspect the folders, requests and documents of any collection', async () => {
    const user = await h.user({ collectionAccess: ['*'] });
    const col = await h.collection(user.token);
    const folder = await h.folder(col.id, {}, user.token);
    const request = await h.request(col.id, { folderId: folder.id }, user.token);
    const document = await h.document(col.id, {}, user.token);
    expect(await h.listIds(`/admin/collections/${col.id}/folders`, 'folders')).toEqual([folder.id]);
    expect(await h.listIds(`/admin/collections/${col.id}/requests`, 'requests')).toEqual([
      request.id,
    ]);
    expect(await h.listIds(`/admin/collections/${col.id}/documents`, 'documents')).toEqual([
      document.id,
    ]);
    expect(
      (await h.t.request('GET', `/admin/collections/${crypto.randomUUID()}/documents`)).status,
    ).toBe(404);
  });
});
