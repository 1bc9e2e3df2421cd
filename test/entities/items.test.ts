/**
 * Saved requests and collection documents: records, updates, creator-only deletes, reorder and move
 * (all-or-nothing), and concurrent reorders and moves that must never lose a row.
 */
import { describe, expect, it } from 'vitest';
import { allDrivers } from '../helpers/drivers.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { uniqueName, useTestHub } from '../helpers/hub.ts';
import { assertShape, documentShape, requestShape } from './desktop-shapes.ts';

const KINDS = [
  {
    segment: 'requests',
    idsKey: 'orderedRequestIds',
    shape: requestShape,
    notFound: 'Request not found',
  },
  {
    segment: 'documents',
    idsKey: 'orderedDocumentIds',
    shape: documentShape,
    notFound: 'Document not found',
  },
] as const;

describe.each(allDrivers())('saved requests and documents on %s', (driver) => {
  const h = fixtures(useTestHub(driver));

  const make = (
    segment: string,
    collectionId: string,
    extra: Record<string, unknown> = {},
    token?: string,
  ) =>
    h.create(
      `/collections/${collectionId}/${segment}`,
      { name: uniqueName(segment), ...extra },
      token,
    );
  /** [id, folderId, sortOrder] of every item, in listing order. */
  const layout = async (segment: string, collectionId: string) =>
    (
      (await h.t.request('GET', `/collections/${collectionId}/${segment}`)).body[segment] as any[]
    ).map((r) => [r.id, r.folderId, r.sortOrder]);
  const idsIn = async (segment: string, collectionId: string, folderId: string | null) =>
    (await layout(segment, collectionId))
      .filter(([, folder]) => folder === folderId)
      .map(([id]) => id);

  it('creates a saved request with defaults for every field the desktop reads', async () => {
    const col = await h.collection();
    const res = await h.t.request('POST', `/collections/${col.id}/requests`, {
      body: { name: 'Health', url: 'https://x.test/health' },
    });
    expect(res.status).toBe(200);
    assertShape(requestShape, res.body);
    expect(res.body).toMatchObject({
      protocol: 'http',
      method: 'GET',
      headers: [],
      params: [],
      body: '',
      bodyType: 'none',
      comment: '',
      folderId: null,
      sortOrder: 0,
      marker: null,
      createdByUserId: h.t.adminId,
    });
    const sse = await make('requests', col.id, {
      protocol: 'sse',
      method: 'POST',
      headers: [{ key: 'a', value: 'b' }],
    });
    expect(sse).toMatchObject({
      protocol: 'sse',
      method: 'POST',
      headers: [{ key: 'a', value: 'b', enabled: true }],
      sortOrder: 1,
    });
    const bad = await h.t.request('POST', `/collections/${col.id}/requests`, {
      body: { name: 'x', method: 'FETCH' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^method: /);
  });

  it.each(KINDS)(
    '$segment: refuses unknown collections (404) and folders of other collections (404)',
    async ({ segment }) => {
      const res = await h.t.request('POST', `/collections/${crypto.randomUUID()}/${segment}`, {
        body: { name: 'x' },
      });
      expect(res.status).toBe(404);
      expect(res.body.error).toBe('Collection not found');
      const col = await h.collection();
      const otherFolder = await h.folder((await h.collection()).id);
      const foreign = await h.t.request('POST', `/collections/${col.id}/${segment}`, {
        body: { name: 'x', folderId: otherFolder.id },
      });
      expect(foreign.status).toBe(404);
      expect(foreign.body.error).toBe('Folder not found');
    },
  );

  it.each(KINDS)(
    '$segment: lists by sortOrder and places each new item last in its folder',
    async ({ segment, shape }) => {
      const col = await h.collection();
      const folder = await h.folder(col.id);
      const a = await make(segment, col.id);
      const f1 = await make(segment, col.id, { folderId: folder.id });
      const b = await make(segment, col.id);
      const f2 = await make(segment, col.id, { folderId: folder.id });
      expect([a.sortOrder, b.sortOrder, f1.sortOrder, f2.sortOrder]).toEqual([0, 1, 0, 1]);
      assertShape(shape, f2);
      expect(await idsIn(segment, col.id, null)).toEqual([a.id, b.id]);
      expect(await idsIn(segment, col.id, folder.id)).toEqual([f1.id, f2.id]);
    },
  );

  it.each(KINDS)(
    '$segment: updates need collectionId, answer 404 for unknown ids and keep omitted fields',
    async ({ segment, notFound }) => {
      const col = await h.collection();
      const item = await make(segment, col.id, { marker: 'blue' });
      const missing = await h.t.request('PUT', `/${segment}/${item.id}`, { body: { name: 'x' } });
      expect(missing.status).toBe(400);
      expect(missing.body.error).toMatch(/^collectionId: /);
      const unknown = await h.t.request('PUT', `/${segment}/${crypto.randomUUID()}`, {
        body: { collectionId: col.id, name: 'x' },
      });
      expect(unknown.status).toBe(404);
      expect(unknown.body.error).toBe(notFound);
      const res = await h.t.request('PUT', `/${segment}/${item.id}`, {
        body: { collectionId: col.id, name: 'Renamed' },
      });
      expect(res.status).toBe(200);
      // The desktop clears a marker by leaving it out.
      expect(res.body).toMatchObject({
        id: item.id,
        name: 'Renamed',
        marker: null,
        sortOrder: item.sortOrder,
        createdAt: item.createdAt,
      });
      expect(await h.listIds(`/collections/${col.id}/${segment}`, segment)).toEqual([item.id]);
    },
  );

  it('moves a request into a folder through PUT, placing it last there', async () => {
    const col = await h.collection();
    const folder = await h.folder(col.id);
    const inFolder = await make('requests', col.id, { folderId: folder.id });
    const item = await make('requests', col.id, { url: 'https://keep.test' });
    const res = await h.t.request('PUT', `/requests/${item.id}`, {
      body: { collectionId: col.id, folderId: folder.id },
    });
    expect(res.body).toMatchObject({
      folderId: folder.id,
      sortOrder: inFolder.sortOrder + 1,
      url: 'https://keep.test',
    });
  });

  it('moves a request to another collection through PUT only with access to both', async () => {
    const user = await h.user({ collectionAccess: ['*'] });
    const source = await h.collection(user.token);
    const target = await h.collection(user.token);
    const item = await make('requests', source.id, {}, user.token);
    const scoped = await h.user({ collectionAccess: [source.id] });
    expect(
      (
        await h.t.request('PUT', `/requests/${item.id}`, {
          token: scoped.token,
          body: { collectionId: target.id },
        })
      ).status,
    ).toBe(403);
    const res = await h.t.request('PUT', `/requests/${item.id}`, {
      token: user.token,
      body: { collectionId: target.id },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ collectionId: target.id, folderId: null });
    expect(await h.listIds(`/collections/${source.id}/requests`, 'requests')).toEqual([]);
  });

  it.each(KINDS)(
    '$segment: only the creator may delete, even when an admin asks; the admin route may',
    async ({ segment }) => {
      const author = await h.user({ collectionAccess: ['*'] });
      const colleague = await h.user({ collectionAccess: ['*'] });
      const col = await h.collection(author.token);
      const item = await make(segment, col.id, {}, author.token);
      const noun = segment === 'requests' ? 'saved request' : 'document';
      const refusal = { error: `Only the ${noun}'s creator can delete it.`, code: 'forbidden' };
      const byColleague = await h.t.request('DELETE', `/${segment}/${item.id}`, {
        token: colleague.token,
      });
      expect([byColleague.status, byColleague.body]).toEqual([403, refusal]);
      const byAdmin = await h.t.request('DELETE', `/${segment}/${item.id}`);
      expect([byAdmin.status, byAdmin.body]).toEqual([403, refusal]);
      expect(
        (await h.t.request('DELETE', `/${segment}/${item.id}`, { token: author.token })).status,
      ).toBe(204);
      const second = await make(segment, col.id, {}, author.token);
      expect((await h.t.request('DELETE', `/admin/${segment}/${second.id}`)).status).toBe(204);
      expect(await h.listIds(`/collections/${col.id}/${segment}`, segment)).toEqual([]);
    },
  );

  it.each(KINDS)(
    '$segment: reorders within a folder or the root, inferring the folder when it is omitted',
    async ({ segment, idsKey }) => {
      const col = await h.collection();
      const folder = await h.folder(col.id);
      const [a, b, c] = [
        await make(segment, col.id, { folderId: folder.id }),
        await make(segment, col.id, { folderId: folder.id }),
        await make(segment, col.id, { folderId: folder.id }),
      ];
      const res = await h.t.request('PUT', `/collections/${col.id}/${segment}/reorder`, {
        body: { folderId: folder.id, [idsKey]: [c.id, a.id, b.id] },
      });
      expect(res.status).toBe(204);
      expect(await idsIn(segment, col.id, folder.id)).toEqual([c.id, a.id, b.id]);
      const inferred = await h.t.request('PUT', `/collections/${col.id}/${segment}/reorder`, {
        body: { [idsKey]: [b.id] },
      });
      expect(inferred.status).toBe(204);
      expect((await layout(segment, col.id)).map(([id, , order]) => [id, order])).toEqual([
        [b.id, 0],
        [c.id, 1],
        [a.id, 2],
      ]);
    },
  );

  it.each(KINDS)(
    '$segment: a reorder with a duplicated id or one in another folder is a 400 that changes nothing',
    async ({ segment, idsKey }) => {
      const col = await h.collection();
      const folder = await h.folder(col.id);
      const [a, b] = [await make(segment, col.id), await make(segment, col.id)];
      const elsewhere = await make(segment, col.id, { folderId: folder.id });
      const before = await layout(segment, col.id);
      for (const ids of [
        [b.id, a.id, b.id],
        [b.id, elsewhere.id],
      ]) {
        const res = await h.t.request('PUT', `/collections/${col.id}/${segment}/reorder`, {
          body: { folderId: null, [idsKey]: ids },
        });
        expect(res.status).toBe(400);
        expect(res.body.error).toMatch(new RegExp(`^${idsKey}: `));
      }
      expect(await layout(segment, col.id)).toEqual(before);
    },
  );

  it.each(KINDS)(
    '$segment: a reorder with an unknown id or one of another collection is a 404 that changes nothing',
    async ({ segment, idsKey, notFound }) => {
      const [col, other] = [await h.collection(), await h.collection()];
      const b = await make(segment, col.id);
      const foreign = await make(segment, other.id);
      const before = await layout(segment, col.id);
      for (const missing of [crypto.randomUUID(), foreign.id]) {
        for (const body of [
          { folderId: null, [idsKey]: [b.id, missing] },
          { [idsKey]: [missing, b.id] },
        ]) {
          const res = await h.t.request('PUT', `/collections/${col.id}/${segment}/reorder`, {
            body,
          });
          expect([res.status, res.body]).toEqual([
            404,
            { error: `${notFound}: ${missing}`, code: 'not_found' },
          ]);
        }
      }
      expect(await layout(segment, col.id)).toEqual(before);
    },
  );

  it.each(KINDS)(
    '$segment: moves to a folder at an index and re-indexes the old and new containers',
    async ({ segment }) => {
      const col = await h.collection();
      const folder = await h.folder(col.id);
      const [r0, r1, r2] = [
        await make(segment, col.id),
        await make(segment, col.id),
        await make(segment, col.id),
      ];
      const [f0, f1] = [
        await make(segment, col.id, { folderId: folder.id }),
        await make(segment, col.id, { folderId: folder.id }),
      ];
      expect(
        (
          await h.t.request('PUT', `/${segment}/${r0.id}/move`, {
            body: { folderId: folder.id, index: 1 },
          })
        ).status,
      ).toBe(204);
      const after = await layout(segment, col.id);
      expect(after.filter(([, f]) => f === null)).toEqual([
        [r1.id, null, 0],
        [r2.id, null, 1],
      ]);
      expect(after.filter(([, f]) => f === folder.id)).toEqual([
        [f0.id, folder.id, 0],
        [r0.id, folder.id, 1],
        [f1.id, folder.id, 2],
      ]);
      // Back to the root, far past the end: it lands last.
      expect(
        (
          await h.t.request('PUT', `/${segment}/${r0.id}/move`, {
            body: { folderId: null, index: 99 },
          })
        ).status,
      ).toBe(204);
      expect(await idsIn(segment, col.id, null)).toEqual([r1.id, r2.id, r0.id]);
      expect(
        (
          await h.t.request('PUT', `/${segment}/${r0.id}/move`, {
            body: { folderId: crypto.randomUUID(), index: 0 },
          })
        ).status,
      ).toBe(404);
      expect(
        (
          await h.t.request('PUT', `/${segment}/${r0.id}/move`, {
            body: { folderId: null, index: -1 },
          })
        ).status,
      ).toBe(400);
    },
  );

  it('loses no row when many reorders of one folder run at once', async () => {
    const col = await h.collection();
    const items = [];
    for (let i = 0; i < 6; i++) items.push(await make('requests', col.id));
    const ids = items.map((item) => item.id);
    const permutations = Array.from({ length: 12 }, (_, n) =>
      [...ids.slice(n % 6), ...ids.slice(0, n % 6)].reverse(),
    );
    const results = await Promise.all(
      permutations.map((order) =>
        h.t.request('PUT', `/collections/${col.id}/requests/reorder`, {
          body: { folderId: null, orderedRequestIds: order },
        }),
      ),
    );
    expect(results.map((res) => res.status)).toEqual(results.map(() => 204));
    const final = await layout('requests', col.id);
    expect(final.map(([id]) => id).sort()).toEqual([...ids].sort());
    // Each reorder rewrites the whole folder, so the outcome is exactly one of the submitted orders.
    expect(permutations).toContainEqual(final.map(([id]) => id));
    expect(final.map(([, , order]) => order)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('loses no row when moves, reorders and creates interleave', async () => {
    const col = await h.collection();
    const [left, right] = [await h.folder(col.id), await h.folder(col.id)];
    const items = [];
    for (let i = 0; i < 6; i++)
      items.push(await make('requests', col.id, { folderId: i % 2 ? left.id : right.id }));
    const work = [
      ...items.map((item, i) =>
        h.t.request('PUT', `/requests/${item.id}/move`, {
          body: { folderId: i % 2 ? right.id : left.id, index: 0 },
        }),
      ),
      h.t.request('PUT', `/collections/${col.id}/requests/reorder`, {
        body: { folderId: left.id, orderedRequestIds: [] },
      }),
      h.t.request('POST', `/collections/${col.id}/requests`, {
        body: { name: 'late', folderId: left.id },
      }),
    ];
    const results = await Promise.all(work);
    for (const res of results) expect(res.status, res.text).toBeLessThan(300);
    const final = new Map(
      (await layout('requests', col.id)).map(([id, folderId]) => [id, folderId]),
    );
    expect(final.size).toBe(7);
    // Every request ended where its own move sent it, whatever else ran beside it.
    items.forEach((item, i) => expect(final.get(item.id)).toBe(i % 2 ? right.id : left.id));
  });
});
