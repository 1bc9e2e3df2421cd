/**
 * The feed reads only the notices a reader could open (feed-scope.ts): these check that the
 * results stay exactly those of the access filter. A reader who lost a collection sees none of its
 * notices and counts none of them, paging through many of them gives every visible notice once and
 * in order (also with more collections than are read one by one, and with the run results the
 * reader made in the lost collection), a moved request takes its notices along, and the migration
 * sets the collection of notices about requests that moved before.
 */
import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../kernel/clock.ts';
import { allDrivers } from '../helpers/drivers.ts';
import { MAX_COLLECTION_STREAMS } from '../../plugins/notices/feed-scope.ts';
import { resyncNoticeCollections } from '../../plugins/notices/moves.ts';
import { noticesTable, type NoticeRow } from '../../plugins/notices/tables.ts';
import { useNoticesHub } from './setup.ts';

const newestFirst = (a: NoticeRow, b: NoticeRow) =>
  a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1;

describe.each(allDrivers())('notice feed scope (%s)', (kind) => {
  const clock = createManualClock(new Date('2026-04-01T10:00:00.000Z'));
  const f = useNoticesHub(kind, { clock });

  async function pages(token: string, limit: number): Promise<any[]> {
    const all: any[] = [];
    let cursor: string | undefined;
    for (let requests = 0; ; requests++) {
      expect(requests).toBeLessThan(100);
      const page = await f.notices(token, `?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
      all.push(...page.notices);
      cursor = page.nextCursor;
      if (!cursor) return all;
    }
  }
  const unread = async (token: string) =>
    (await f.t.request('GET', '/notices/unread-count', { token })).body.count;
  const setAccess = async (userId: string, collectionAccess: string[]) => {
    const res = await f.t.request('PUT', `/admin/users/${userId}`, { body: { collectionAccess } });
    expect(res.status, res.text).toBe(200);
  };
  /** The reader's notice rows the access filter lets through, newest first. */
  async function expected(readerId: string, visible: (row: NoticeRow) => boolean) {
    const rows = await f.t
      .store()
      .table(noticesTable)
      .find({ where: { recipientUserId: readerId } });
    return rows.filter(visible).sort(newestFirst);
  }

  it('hides and does not count a lost collection, and pages every visible notice once in order', async () => {
    const owner = await f.user({ collectionAccess: ['*'] });
    const [keptA, keptB, lost] = [
      await f.collection(owner.token),
      await f.collection(owner.token),
      await f.collection(owner.token),
    ];
    const reader = await f.user({ collectionAccess: [keptA.id, keptB.id, lost.id] });
    // The reader's own run result in the collection they lose: its creator still reads it.
    const run = await f.create(
      '/run-results',
      {
        payload: {
          harborclientExport: 'request-run-results',
          collection: { id: lost.id },
          results: [{ status: 'passed' }],
        },
      },
      reader.token,
    );
    for (let i = 0; i < 6; i++) {
      clock.advance(3);
      await f.mention(reader, lost.id, 5);
      await f.mention(reader, keptA.id, 1);
      if (i % 2) await f.mention(reader, keptB.id, 1);
      if (i === 2) await f.mention(reader, run.id, 2, 'runResult');
    }
    expect(await unread(reader.token)).toBe(6 * 5 + 6 + 3 + 2);
    await setAccess(reader.id, [keptA.id, keptB.id]);

    const visible = await expected(
      reader.id,
      (row) => row.collectionId !== lost.id || row.entityType === 'runResult',
    );
    expect(visible).toHaveLength(6 + 3 + 2);
    for (const limit of [1, 4, 50]) {
      const seen = await pages(reader.token, limit);
      expect(seen.map((n) => n.id)).toEqual(visible.map((row) => row.id));
    }
    expect(await unread(reader.token)).toBe(11);
    const [first] = (await f.notices(reader.token)).notices;
    await f.t.request('POST', `/notices/${first.id}/read`, { token: reader.token });
    expect(await unread(reader.token)).toBe(10);
  });

  it(`pages and counts the same with more than ${MAX_COLLECTION_STREAMS} collections`, async () => {
    const owner = await f.user({ collectionAccess: ['*'] });
    const collections = [];
    for (let i = 0; i < MAX_COLLECTION_STREAMS + 3; i++)
      collections.push(await f.collection(owner.token));
    const reader = await f.user({ collectionAccess: collections.map((c) => c.id) });
    for (const [i, collection] of collections.entries()) {
      clock.advance(i % 3 === 0 ? 0 : 1);
      await f.mention(reader, collection.id, i === 0 ? 6 : 1);
    }
    const kept = collections.slice(1).map((c) => c.id);
    await setAccess(reader.id, kept);
    const visible = await expected(reader.id, (row) => kept.includes(row.collectionId!));
    expect(visible).toHaveLength(collections.length - 1);
    expect((await pages(reader.token, 3)).map((n) => n.id)).toEqual(visible.map((r) => r.id));
    expect(await unread(reader.token)).toBe(visible.length);
  });

  it('moves the notices of a request moved to another collection with it', async () => {
    const owner = await f.user({ collectionAccess: ['*'] });
    const [kept, other] = [await f.collection(owner.token), await f.collection(owner.token)];
    const reader = await f.user({ collectionAccess: [kept.id, other.id] });
    const request = await f.request(other.id, {}, owner.token);
    await f.mention(reader, request.id, 2, 'request');
    await setAccess(reader.id, [kept.id]);
    expect((await f.notices(reader.token)).notices).toEqual([]);
    expect(await unread(reader.token)).toBe(0);

    const move = async (collectionId: string) => {
      const res = await f.t.request('PUT', `/requests/${request.id}`, {
        token: owner.token,
        body: { collectionId },
      });
      expect(res.status, res.text).toBe(200);
    };
    await move(kept.id);
    const shown = (await f.notices(reader.token)).notices;
    expect(shown).toHaveLength(2);
    expect(shown.every((n) => n.collectionId === kept.id)).toBe(true);
    expect(await unread(reader.token)).toBe(2);
    await move(other.id);
    expect((await f.notices(reader.token)).notices).toEqual([]);
    expect(await unread(reader.token)).toBe(0);
  });

  it("sets each request notice's collection to its request's collection in the migration step", async () => {
    const owner = await f.user({ collectionAccess: ['*'] });
    const [from, to] = [await f.collection(owner.token), await f.collection(owner.token)];
    const reader = await f.user({ collectionAccess: [from.id, to.id] });
    const request = await f.request(to.id, {}, owner.token);
    await f.mention(reader, request.id, 2, 'request');
    const notices = f.t.store().table(noticesTable);
    const [row] = await notices.find({ where: { entityId: request.id } });
    // As left by a move made before moves carried notices along, plus one about a gone request.
    await notices.updateWhere({ entityId: request.id }, { collectionId: from.id });
    const gone = { ...row!, id: crypto.randomUUID(), entityId: 'gone', requestId: 'gone' };
    await notices.insert({ ...gone, collectionId: from.id });
    await resyncNoticeCollections(f.t.hub.driver().unscoped());
    const moved = await notices.find({ where: { entityId: request.id } });
    expect(moved.length).toBeGreaterThanOrEqual(2);
    expect(moved.every((r) => r.collectionId === to.id)).toBe(true);
    expect((await notices.get(gone.id))!.collectionId).toBe(from.id);
  });
});
