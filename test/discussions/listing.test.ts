/**
 * Listing threads: oldest first, `limit` and opaque `cursor` paging that neither repeats nor skips
 * rows (also when comments share a timestamp or arrive while a client pages), and 400s for bad
 * query values.
 */
import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../kernel/clock.ts';
import { httpDrivers } from '../helpers/drivers.ts';
import { useDiscussionHub, type DiscussionHub } from './setup.ts';

/** Every comment id of a thread, page by page; throws on a non-200 page. */
async function pageThrough(
  h: DiscussionHub,
  target: string,
  limit: number,
  between?: () => Promise<void>,
): Promise<string[][]> {
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const res = await h.list(
      target,
      `?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    expect(res.status, res.text).toBe(200);
    pages.push(res.body.comments.map((c: any) => c.id));
    cursor = res.body.nextCursor;
    if ('nextCursor' in res.body) expect(typeof cursor).toBe('string');
    await between?.();
  } while (cursor);
  return pages;
}

describe.each(httpDrivers())('discussion listing with a frozen clock on %s', (driver) => {
  const clock = createManualClock();
  const h = useDiscussionHub(driver, { clock });

  it('pages through comments that share one timestamp without duplicates or gaps', async () => {
    const col = await h.collection();
    const ids: string[] = [];
    for (let i = 0; i < 23; i++) ids.push((await h.comment(`/collections/${col.id}`, `c${i}`)).id);
    const expected = [...ids].sort();
    const pages = await pageThrough(h, `/collections/${col.id}`, 5);
    expect(pages.map((p) => p.length)).toEqual([5, 5, 5, 5, 3]);
    expect(pages.flat()).toEqual(expected);
    const all = await h.list(`/collections/${col.id}`, '?limit=23');
    expect(all.body.comments).toHaveLength(23);
    expect('nextCursor' in all.body).toBe(false);
  });

  it('lists oldest first across timestamps and defaults to 50 per page', async () => {
    const col = await h.collection();
    const ids: string[] = [];
    for (let i = 0; i < 55; i++) {
      clock.advance(1);
      ids.push((await h.comment(`/collections/${col.id}`, `c${i}`)).id);
    }
    const first = await h.list(`/collections/${col.id}`);
    expect(first.body.comments.map((c: any) => c.id)).toEqual(ids.slice(0, 50));
    const rest = await h.list(`/collections/${col.id}`, `?cursor=${first.body.nextCursor}`);
    expect(rest.body.comments.map((c: any) => c.id)).toEqual(ids.slice(50));
    expect(rest.body.nextCursor).toBeUndefined();
  });
});

describe.each(httpDrivers())('discussion listing on %s', (driver) => {
  const h = useDiscussionHub(driver);

  it('sees every comment that existed before paging exactly once while 20 comments are being added', async () => {
    const col = await h.collection();
    const target = `/collections/${col.id}`;
    const before: string[] = [];
    for (let i = 0; i < 30; i++) before.push((await h.comment(target, `before ${i}`)).id);
    const writers = Array.from({ length: 20 }, (_, i) => h.comment(target, `during ${i}`));
    const [pages] = await Promise.all([
      pageThrough(h, target, 4, () => new Promise((r) => setTimeout(r, 1))),
      Promise.all(writers),
    ]);
    const seen = pages.flat();
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of before) expect(seen.filter((x) => x === id)).toHaveLength(1);
  });

  it('refuses a bad limit with a 400 naming limit', async () => {
    const col = await h.collection();
    for (const query of [
      '?limit=0',
      '?limit=101',
      '?limit=abc',
      '?limit=2.5',
      '?limit=-1',
      '?limit=',
      '?limit=1&limit=2',
      '?limit=99999999999999999999',
      '?limit=0x10',
      '?limit=1e1',
    ]) {
      const res = await h.list(`/collections/${col.id}`, query);
      expect(res.status, query).toBe(400);
      expect(res.body.error, query).toMatch(/^limit: /);
    }
    expect((await h.list(`/collections/${col.id}`, '?limit=100')).status).toBe(200);
    expect((await h.list(`/collections/${col.id}`, '?limit=1')).status).toBe(200);
  });

  it('refuses a malformed cursor with a 400 naming cursor, never a 500', async () => {
    const col = await h.collection();
    await h.comment(`/collections/${col.id}`);
    const b64 = (text: string) => Buffer.from(text).toString('base64url');
    const bad = [
      'not a cursor',
      '%%%',
      '',
      b64('nothing'),
      b64('2026-01-01T00:00:00.000Z|'),
      b64('2026-02-30T00:00:00.000Z|abc'),
      b64('yesterday|abc'),
      b64('2026-01-01T00:00:00.000Z|' + 'x'.repeat(200)),
      b64('2026-01-01T00:00:00.000Z|a\u0000b'),
      Buffer.concat([Buffer.from('2026-01-01T00:00:00.000Z|a'), Buffer.from([0xff])]).toString(
        'base64url',
      ),
      'A'.repeat(5000),
      b64('99999-01-01T00:00:00.000Z|a'),
      '2026-01-01T00:00:00.000Z',
    ];
    for (const cursor of bad) {
      const res = await h.list(`/collections/${col.id}`, `?cursor=${encodeURIComponent(cursor)}`);
      expect(res.status, cursor.slice(0, 40)).toBe(400);
      expect(res.body.error).toMatch(/^cursor: /);
    }
    const twice = await h.list(`/collections/${col.id}`, `?cursor=a&cursor=b`);
    expect(twice.status).toBe(400);
    const valid = await h.list(
      `/collections/${col.id}`,
      `?cursor=${b64('2000-01-01T00:00:00.000Z|x')}`,
    );
    expect(valid.status).toBe(200);
    expect(valid.body.comments).toHaveLength(1);
  });
});
