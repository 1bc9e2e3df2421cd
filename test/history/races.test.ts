/**
 * History under concurrency: many clients undeleting one record at once, parallel saves while the
 * history budget and `maxRevisionsPerRecord` are checked and applied, a purge racing with writes,
 * a restore racing with a deletion, and a restore racing with a move to another collection. Every
 * client gets a proper answer (no 500, no 503), nothing is written half, and a revision's content
 * never reaches a collection whose readers could not read where it was written.
 */
import { describe, expect, it } from 'vitest';
import { allDrivers } from '../helpers/drivers.ts';
import { EVERY_ENTITY, fixtures } from '../helpers/fixtures.ts';
import { useTestHub, type TestResponse } from '../helpers/hub.ts';

const KB = 1024;
const NO_PRUNING = { keepDays: 0, pruneIntervalSeconds: 86_400 };
const together = <T>(count: number, fn: (i: number) => Promise<T>) =>
  Promise.all(Array.from({ length: count }, (_, i) => fn(i)));
const statuses = (answers: readonly TestResponse[]) =>
  answers.map((res) => `${res.status}${res.status >= 500 ? ` ${res.text}` : ''}`);

describe.each(allDrivers())('history races on %s', (driver) => {
  const t = useTestHub(driver, {
    config: { history: { ...NO_PRUNING, maxRevisionsPerRecord: 4 } },
  });
  const h = fixtures(t);
  const versions = async (path: string) => {
    const res = await t.request('GET', `${path}/revisions?limit=100`);
    expect(res.status, res.text).toBe(200);
    return (res.body.revisions as any[]).map((r) => r.version as number);
  };
  /** The id of the revision of `path` with this action (the newest such). */
  const revisionOf = async (path: string, action: string) => {
    const res = await t.request('GET', `${path}/revisions?limit=100`);
    return (res.body.revisions as any[]).find((r) => r.action === action)!.id as string;
  };

  it.each([
    ['requests', 'a saved request'],
    ['folders', 'a folder with a request in it'],
    ['environments', 'an environment'],
  ])(
    'restores deleted %s (%s) once when 12 clients undelete it at the same time: the others get 409',
    async (segment) => {
      const col = await h.collection();
      const record =
        segment === 'requests'
          ? await h.request(col.id)
          : segment === 'folders'
            ? await h.folder(col.id)
            : await h.create('/environments', { name: 'env' });
      const inside =
        segment === 'folders' ? await h.request(col.id, { folderId: record.id }) : null;
      const path = `/${segment}/${record.id}`;
      expect((await t.request('DELETE', path)).status).toBe(204);
      const deletion = await revisionOf(path, 'deleted');
      const answers = await together(12, () =>
        t.request('POST', `${path}/revisions/${deletion}/restore`),
      );
      expect(statuses(answers).filter((s) => s !== '200' && s !== '409')).toEqual([]);
      expect(answers.filter((res) => res.status === 200)).toHaveLength(1);
      for (const res of answers.filter((res) => res.status === 409))
        expect(res.body.error).toMatch(/restored|exists/);
      // One `restored` revision, right after the deletion; the record and its contents are back.
      expect(await versions(path)).toEqual([3, 2, 1]);
      const listing =
        segment === 'folders'
          ? ([`/collections/${col.id}/folders`, 'folders'] as const)
          : segment === 'environments'
            ? (['/environments', 'environments'] as const)
            : null;
      if (listing)
        expect(await h.listIds(listing[0], listing[1], undefined, [record.id])).toEqual([
          record.id,
        ]);
      else expect((await t.request('GET', path)).status).toBe(200);
      if (inside) {
        expect((await t.request('GET', `/requests/${inside.id}`)).status).toBe(200);
        expect(await versions(`/requests/${inside.id}`)).toEqual([3, 2, 1]);
      }
      if (segment !== 'environments')
        expect((await t.request('GET', `/collections/${col.id}/trash`)).body.items).toEqual([]);
    },
  );

  it('answers 16 parallel saves of one request and of 16 requests at the revision limit, the limit kept', async () => {
    const col = await h.collection();
    const [other] = [await h.collection()];
    const one = await h.request(col.id);
    const many = await together(16, () => h.request(col.id));
    // Saves in place (the one-statement edit and the trimming one) and moves (a transaction
    // that checks the budget and trims inside it), all at once, five times over.
    for (let round = 0; round < 5; round++) {
      const answers = await together(32, (i) =>
        i < 16
          ? t.request('PUT', `/requests/${one.id}`, {
              body: { collectionId: i % 4 === 0 ? other.id : col.id, url: `https://o.test/${i}` },
            })
          : t.request('PUT', `/requests/${many[i - 16]!.id}`, {
              body: { collectionId: i % 2 === 0 ? other.id : col.id, url: `https://m.test/${i}` },
            }),
      );
      expect(statuses(answers).filter((s) => s !== '200')).toEqual([]);
    }
    for (const req of [one, ...many]) {
      const kept = await versions(`/requests/${req.id}`);
      expect(kept).toHaveLength(4);
      expect(kept[0]! - kept[3]!).toBe(3);
    }
  });

  it('purges a request while 12 clients save it: every answer 200, what is left a run of versions', async () => {
    const col = await h.collection();
    for (let round = 0; round < 4; round++) {
      const req = await h.request(col.id);
      const path = `/requests/${req.id}`;
      const answers = await together(16, (i) =>
        i % 4 === 0
          ? t.request('DELETE', `/admin${path}/revisions`)
          : t.request('PUT', path, { body: { collectionId: col.id, url: `https://p.test/${i}` } }),
      );
      expect(statuses(answers).filter((s) => s !== '200')).toEqual([]);
      const live = await t.request('GET', path);
      expect(live.headers.get('etag')).toBe('"13"');
      const kept = await versions(path);
      expect(kept).toEqual([13, 12, 11, 10].slice(0, kept.length));
    }
  });

  it('restores a request while it is being deleted: each answer proper, the end state one of theirs', async () => {
    const col = await h.collection();
    for (let round = 0; round < 4; round++) {
      const req = await h.request(col.id, { url: 'https://first.test' });
      const path = `/requests/${req.id}`;
      await t.request('PUT', path, { body: { collectionId: col.id, url: 'https://second.test' } });
      const first = await revisionOf(path, 'created');
      const answers = await together(8, (i) =>
        i % 2 === 0
          ? t.request('POST', `${path}/revisions/${first}/restore`)
          : t.request('DELETE', path),
      );
      const allowed = ['200', '204', '404', '409'];
      expect(statuses(answers).filter((s) => !allowed.includes(s))).toEqual([]);
      // Versions one by one, nothing twice; the record is there exactly when the last is no deletion.
      const kept = await versions(path);
      expect(kept).toEqual(Array.from({ length: kept.length }, (_, i) => kept[0]! - i));
      const newest = (await t.request('GET', `${path}/revisions?limit=1`)).body.revisions[0];
      const now = await t.request('GET', path);
      expect(now.status).toBe(newest.action === 'deleted' ? 404 : 200);
    }
  });

  it("never lets a restore racing with a move put another collection's content where its readers could not read it", async () => {
    const [c1, c2] = [await h.collection(), await h.collection()];
    const mover = await h.user({ collectionAccess: [c1.id, c2.id] });
    const restorer = await h.user({ collectionAccess: [c2.id] });
    for (let round = 0; round < 6; round++) {
      const req = await h.request(c2.id, { url: 'https://c2-secret.test' }, mover.token);
      const path = `/requests/${req.id}`;
      const scrub = await t.request('PUT', path, {
        token: mover.token,
        body: { collectionId: c2.id, url: 'https://scrubbed.test' },
      });
      expect(scrub.status).toBe(200);
      const v1 = await revisionOf(path, 'created');
      const answers = await Promise.all([
        t.request('PUT', path, { token: mover.token, body: { collectionId: c1.id } }),
        t.request('POST', `${path}/revisions/${v1}/restore`, { token: restorer.token }),
      ]);
      expect(answers[0].status, answers[0].text).toBe(200);
      // Restored before the move (in C2, where the restorer may write), or refused after it.
      const [moved, restored] = answers;
      if (restored.status === 200) {
        expect(restored.body.collectionId).toBe(c2.id);
        expect(Number(JSON.parse(restored.headers.get('etag')!))).toBeLessThan(
          Number(JSON.parse(moved.headers.get('etag')!)),
        );
      } else expect(restored.status, restored.text).toBe(403);
    }
  });
});

describe.each(allDrivers())('parallel saves under a small history budget on %s', (driver) => {
  const t = useTestHub(driver, {
    config: {
      history: { ...NO_PRUNING, maxRevisionsPerRecord: 3, maxBytesPerUser: 20 * KB },
    },
  });
  const h = fixtures(t);

  it('answers 200, or 409 naming history.maxBytesPerUser, to each of 16 saves and moves at a time, never 5xx', async () => {
    const col = await h.collection();
    const other = await h.collection();
    // One author spends the budget (2 KiB saves on five documents), another stays below it (small
    // saves on four), so refusals and the ledger's writes (every second, each a transaction of
    // its own) run together with the moves, which check the budget inside their transaction.
    const spender = await h.user(EVERY_ENTITY);
    const writer = await h.user(EVERY_ENTITY);
    const spent = await together(5, () => h.document(col.id, {}, spender.token));
    const small = await together(4, () => h.document(col.id, {}, writer.token));
    const refused: TestResponse[] = [];
    let saved = 0;
    for (let round = 0; round < 24; round++) {
      const answers = await together(16, (i) => {
        const [author, doc, size] =
          i < 8 ? [spender, spent[i % 5]!, 2 * KB] : [writer, small[i % 4]!, 256];
        return t.request('PUT', `/documents/${doc.id}`, {
          token: author.token,
          body: {
            collectionId: (round + i) % 3 === 0 ? other.id : col.id,
            content: `${round}.${i}:`.padEnd(size, 'x'),
          },
        });
      });
      expect(statuses(answers).filter((s) => s !== '200' && s !== '409')).toEqual([]);
      refused.push(...answers.filter((res) => res.status === 409));
      saved += answers.slice(8).filter((res) => res.status === 200).length;
    }
    expect(refused.length).toBeGreaterThan(0);
    for (const res of refused) expect(res.body.error).toMatch(/history\.maxBytesPerUser/);
    expect(saved).toBe(24 * 8);
    for (const [author, doc] of [
      ...spent.map((doc) => [spender, doc] as const),
      ...small.map((doc) => [writer, doc] as const),
    ]) {
      const kept = await t.request('GET', `/documents/${doc.id}/revisions`, {
        token: author.token,
      });
      expect(kept.body.revisions.length).toBeLessThanOrEqual(3);
    }
  }, 120_000);
});
