/**
 * Conflict detection for clients that ask: `ETag: "<version>"` on reads and write answers, and
 * `If-Match` on PUT, PATCH and DELETE: two writers with the same ETag get one success and one 412
 * carrying the record as it is now. Without `If-Match` writes behave as before.
 */
import { describe, expect, it } from 'vitest';
import { allDrivers } from '../helpers/drivers.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { useTestHub } from '../helpers/hub.ts';

describe.each(allDrivers())('If-Match on %s', (driver) => {
  const t = useTestHub(driver);
  const h = fixtures(t);

  it.each(['requests', 'documents'])(
    '%s: two writers with the same ETag get one 200 and one 412 with current',
    async (segment) => {
      const col = await h.collection();
      const item = await h.create(`/collections/${col.id}/${segment}`, { name: 'first' });
      const read = await t.request('GET', `/${segment}/${item.id}`);
      expect(read.status).toBe(200);
      const etag = read.headers.get('etag')!;
      expect(etag).toBe('"1"');
      const write = (name: string) =>
        t.request('PUT', `/${segment}/${item.id}`, {
          headers: { 'If-Match': etag },
          body: { collectionId: col.id, name },
        });
      const answers = await Promise.all([write('one'), write('two')]);
      expect(answers.map((a) => a.status).sort()).toEqual([200, 412]);
      const won = answers.find((a) => a.status === 200)!;
      const lost = answers.find((a) => a.status === 412)!;
      expect(won.headers.get('etag')).toBe('"2"');
      expect(lost.body).toMatchObject({ code: 'precondition_failed', current: won.body });
      expect(lost.headers.get('etag')).toBe('"2"');
      // A stale delete is refused too, and leaves the record.
      const del = await t.request('DELETE', `/${segment}/${item.id}`, {
        headers: { 'If-Match': etag },
      });
      expect(del.status).toBe(412);
      expect((await t.request('GET', `/${segment}/${item.id}`)).status).toBe(200);
      const fresh = await t.request('DELETE', `/${segment}/${item.id}`, {
        headers: { 'If-Match': '"2"' },
      });
      expect(fresh.status).toBe(204);
    },
  );

  it('a write without If-Match still wins over any version (the old version stays in history)', async () => {
    const col = await h.collection();
    const req = await h.request(col.id, { url: 'https://a.test' });
    await t.request('PUT', `/requests/${req.id}`, { body: { collectionId: col.id, url: 'b' } });
    const res = await t.request('PUT', `/requests/${req.id}`, {
      body: { collectionId: col.id, url: 'c' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBe('"3"');
    const list = await t.request('GET', `/requests/${req.id}/revisions`);
    expect(list.body.revisions).toHaveLength(3);
  });

  it('checks If-Match on folders and top-level kinds, and answers their new ETag', async () => {
    const col = await h.collection();
    const folder = await h.folder(col.id);
    const stale = await t.request('PATCH', `/folders/${folder.id}`, {
      headers: { 'If-Match': '"7"' },
      body: { name: 'x' },
    });
    expect(stale.status).toBe(412);
    expect(stale.body.current).toMatchObject({ id: folder.id, name: folder.name });
    const ok = await t.request('PATCH', `/folders/${folder.id}`, {
      headers: { 'If-Match': '"1"' },
      body: { name: 'x' },
    });
    expect([ok.status, ok.headers.get('etag')]).toEqual([200, '"2"']);
    const env = await h.create('/environments', { name: 'env' });
    const first = await t.request('PUT', `/environments/${env.id}`, {
      headers: { 'If-Match': '"1"' },
      body: { name: 'env2' },
    });
    expect([first.status, first.headers.get('etag')]).toEqual([200, '"2"']);
    const second = await t.request('PUT', `/environments/${env.id}`, {
      headers: { 'If-Match': '"1"' },
      body: { name: 'env3' },
    });
    expect(second.status).toBe(412);
    expect(second.body.current.name).toBe('env2');
    const del = await t.request('DELETE', `/environments/${env.id}`, {
      headers: { 'If-Match': '"1"' },
    });
    expect(del.status).toBe(412);
  });
});
