/**
 * Where a new item goes: the next position in a folder is read by the folder alone, in the root by
 * the collection. Concurrent creates into two folders and the root of one collection, and into a
 * folder of another, each get consecutive positions in their own container, and an item moved in
 * from another collection goes last in its new folder.
 */
import { describe, expect, it } from 'vitest';
import { allDrivers } from '../helpers/drivers.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { useTestHub } from '../helpers/hub.ts';

describe.each(allDrivers())('item positions on %s', (driver) => {
  const h = fixtures(useTestHub(driver));

  it.each(['requests', 'documents'])(
    '%s: concurrent creates into several containers get consecutive positions in each',
    async (segment) => {
      const [col, other] = [await h.collection(), await h.collection()];
      const [a, b, elsewhere] = [
        await h.folder(col.id),
        await h.folder(col.id),
        await h.folder(other.id),
      ];
      const containers = [
        [col.id, a.id],
        [col.id, b.id],
        [col.id, null],
        [other.id, elsewhere.id],
      ] as const;
      const created = await Promise.all(
        Array.from({ length: 32 }, (_, i) => {
          const [collectionId, folderId] = containers[i % containers.length]!;
          return h.create(`/collections/${collectionId}/${segment}`, {
            name: `Item ${i}`,
            ...(folderId ? { folderId } : {}),
          });
        }),
      );
      for (const [collectionId, folderId] of containers) {
        const inside = created.filter(
          (item) => item.collectionId === collectionId && item.folderId === folderId,
        );
        expect(inside.map((item) => item.sortOrder).sort((x, y) => x - y)).toEqual(
          Array.from({ length: 8 }, (_, i) => i),
        );
      }
    },
  );

  it('places a request moved in from another collection last in its new folder', async () => {
    const [col, other] = [await h.collection(), await h.collection()];
    const folder = await h.folder(col.id);
    for (let i = 0; i < 3; i++) await h.request(col.id, { folderId: folder.id });
    const moving = await h.request(other.id);
    const res = await h.t.request('PUT', `/requests/${moving.id}`, {
      body: { collectionId: col.id, folderId: folder.id },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ collectionId: col.id, folderId: folder.id, sortOrder: 3 });
    const next = await h.request(col.id, { folderId: folder.id });
    expect(next.sortOrder).toBe(4);
  });
});
