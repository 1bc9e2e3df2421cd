/** A collection's trash in pages: newest first, `limit` and `cursor` like the hub's other lists. */
import { describe, expect, it } from 'vitest';
import { allDrivers } from '../helpers/drivers.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { useTestHub } from '../helpers/hub.ts';

describe.each(allDrivers())('the trash in pages on %s', (driver) => {
  const t = useTestHub(driver);
  const h = fixtures(t);

  it('pages the trash newest first with cursor and limit, and refuses what it did not issue', async () => {
    const col = await h.collection();
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await h.request(col.id, { name: `r${i}` }));
    const folder = await h.folder(col.id);
    for (const req of made)
      expect((await t.request('DELETE', `/requests/${req.id}`)).status).toBe(204);
    expect((await t.request('DELETE', `/folders/${folder.id}`)).status).toBe(204);
    const expected = [folder.id, ...made.map((req) => req.id).reverse()];
    const seen: string[] = [];
    let cursor = '';
    for (let page = 0; page < 3; page++) {
      const res = await t.request(
        'GET',
        `/collections/${col.id}/trash?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(res.status, res.text).toBe(200);
      expect(res.body.items).toHaveLength(2);
      seen.push(...res.body.items.map((item: any) => item.id));
      cursor = res.body.nextCursor;
      expect(Boolean(cursor)).toBe(page < 2);
    }
    // Each item once, in the order of the whole list: newest first (ties in any fixed order).
    const whole = await t.request('GET', `/collections/${col.id}/trash`);
    expect(whole.body.nextCursor).toBeUndefined();
    expect(seen).toEqual(whole.body.items.map((item: any) => item.id));
    expect([...seen].sort()).toEqual([...expected].sort());
    const times = whole.body.items.map((item: any) => item.deletedAt);
    expect(times).toEqual([...times].sort().reverse());
    for (const query of ['cursor=nope', 'limit=0', 'limit=101']) {
      const bad = await t.request('GET', `/collections/${col.id}/trash?${query}`);
      expect(bad.status, query).toBe(400);
      expect(bad.body.error).toMatch(query.split('=')[0]!);
    }
  });
});
