/**
 * Concurrent writes that plan from what they read: on servers with many connections (PostgreSQL,
 * MariaDB) these must still end in a consistent tree, with unique positions, no orphans and no
 * cycles, and every loser must get a clear 4xx (or win on a retry), never a 500.
 */
import { describe, expect, it } from 'vitest';
import { allDrivers } from '../helpers/drivers.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { uniqueName, useTestHub } from '../helpers/hub.ts';

const ROUNDS = 6;

describe.each(allDrivers())('concurrent entity writes on %s', (driver) => {
  const h = fixtures(useTestHub(driver));
  const all = <T>(n: number, make: (i: number) => Promise<T>) =>
    Promise.all(Array.from({ length: n }, (_, i) => make(i)));
  const sortOrders = (rows: { sortOrder: number }[]) =>
    rows.map((row) => row.sortOrder).sort((x, y) => x - y);
  const expectNo500 = (statuses: number[]) =>
    expect(statuses.filter((status) => status >= 500)).toEqual([]);

  it('gives concurrently created requests, folders and snippets distinct positions', async () => {
    const col = await h.collection();
    await all(10, () => h.request(col.id));
    await all(10, () => h.folder(col.id));
    const requests = (await h.t.request('GET', `/collections/${col.id}/requests`)).body.requests;
    const folders = (await h.t.request('GET', `/collections/${col.id}/folders`)).body.folders;
    expect(sortOrders(requests)).toEqual([...Array(10).keys()]);
    expect(sortOrders(folders)).toEqual([...Array(10).keys()]);
    const created = await all(8, () => h.create('/snippets', { name: uniqueName('snippet') }));
    expect(new Set(created.map((s: { sortOrder: number }) => s.sortOrder)).size).toBe(8);
  });

  it('never lets two folders be moved under each other at once', async () => {
    const col = await h.collection();
    for (let round = 0; round < ROUNDS; round++) {
      const a = await h.folder(col.id);
      const b = await h.folder(col.id);
      const [ab, ba] = await Promise.all([
        h.t.request('PUT', `/folders/${a.id}/move`, { body: { parentFolderId: b.id } }),
        h.t.request('PUT', `/folders/${b.id}/move`, { body: { parentFolderId: a.id } }),
      ]);
      expectNo500([ab.status, ba.status]);
      expect([ab.status, ba.status].sort()).toEqual([200, 400]);
    }
    // Every folder's chain of parents ends at the root.
    const folders: { id: string; parentFolderId: string | null }[] = (
      await h.t.request('GET', `/collections/${col.id}/folders`)
    ).body.folders;
    const parentOf = new Map(folders.map((f) => [f.id, f.parentFolderId]));
    for (const folder of folders) {
      let steps = 0;
      for (let at: string | null = folder.id; at !== null; at = parentOf.get(at) ?? null)
        expect(++steps).toBeLessThanOrEqual(folders.length);
    }
  });

  it('never lets two environments inherit from each other at once', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const a = await h.create('/environments', { name: uniqueName('env') });
      const b = await h.create('/environments', { name: uniqueName('env') });
      const [ab, ba] = await Promise.all([
        h.t.request('PUT', `/environments/${a.id}`, { body: { parentUuid: b.id } }),
        h.t.request('PUT', `/environments/${b.id}`, { body: { parentUuid: a.id } }),
      ]);
      expect([ab.status, ba.status].sort()).toEqual([200, 400]);
    }
  });

  it('leaves no request or folder behind when creates race the deletion of their folder or collection', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const col = await h.collection();
      const folder = await h.folder(col.id);
      const creates = all(6, () =>
        h.t.request('POST', `/collections/${col.id}/requests`, {
          body: { name: uniqueName('r'), folderId: folder.id },
        }),
      );
      const subfolders = all(3, () =>
        h.t.request('POST', `/collections/${col.id}/folders`, {
          body: { name: uniqueName('f'), parentFolderId: folder.id },
        }),
      );
      const removeFolder = h.t.request('DELETE', `/folders/${folder.id}`);
      const results = [...(await creates), ...(await subfolders), await removeFolder];
      expectNo500(results.map((res) => res.status));
      const requests: { folderId: string | null }[] = (
        await h.t.request('GET', `/collections/${col.id}/requests`)
      ).body.requests;
      const folders: { id: string; parentFolderId: string | null }[] = (
        await h.t.request('GET', `/collections/${col.id}/folders`)
      ).body.folders;
      const ids = new Set(folders.map((f) => f.id));
      expect(requests.filter((r) => r.folderId !== null && !ids.has(r.folderId))).toEqual([]);
      expect(
        folders.filter((f) => f.parentFolderId !== null && !ids.has(f.parentFolderId)),
      ).toEqual([]);

      const late = all(6, () =>
        h.t.request('POST', `/collections/${col.id}/requests`, { body: { name: uniqueName('r') } }),
      );
      const removeCollection = h.t.request('DELETE', `/admin/collections/${col.id}`);
      expectNo500([...(await late).map((res) => res.status), (await removeCollection).status]);
      const leftovers = await h.t.request('GET', `/admin/collections/${col.id}/requests`);
      expect(leftovers.status).toBe(404);
      const store = h.t.hub.driver().forTenant('__default__');
      const { requestsTable } = await import('../../plugins/entities/tables.ts');
      expect(await store.table(requestsTable).count({ collectionId: col.id })).toBe(0);
    }
  });

  it('keeps positions unique when moves and reorders of one folder interleave', async () => {
    const col = await h.collection();
    const folder = await h.folder(col.id);
    const items = await all(6, () => h.request(col.id));
    const moves = items.map((item, i) =>
      h.t.request('PUT', `/requests/${item.id}/move`, {
        body: { folderId: folder.id, index: i % 3 },
      }),
    );
    const statuses = (await Promise.all(moves)).map((res) => res.status);
    expect(statuses).toEqual(items.map(() => 204));
    const inFolder = (
      (await h.t.request('GET', `/collections/${col.id}/requests`)).body.requests as {
        folderId: string | null;
        sortOrder: number;
      }[]
    ).filter((r) => r.folderId === folder.id);
    expect(sortOrders(inFolder)).toEqual([...Array(6).keys()]);
  });
});
