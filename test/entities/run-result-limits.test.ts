/**
 * Per-user limits on run results (`runResults.maxPerUser`, `runResults.maxBytesPerUser`): refusals
 * naming the limit, racing uploads at the edge, deletes freeing room, the admin usage figures, runs
 * stored before the limits existed, and a reload changing the limits.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { runResultsTable } from '../../plugins/entities/tables.ts';
import { allDrivers, EMBEDDED_DRIVER } from '../helpers/drivers.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { useTestHub } from '../helpers/hub.ts';

const MAX_COUNT = 3;
const MAX_BYTES = 20_000;

const payload = (padding = '') => ({
  harborclientExport: 'request-run-results',
  request: { name: 'Health' },
  results: [{ status: 'passed', padding }],
});

/** A run as the version before limits stored it: no size, and no usage row for its creator. */
const oldRun = (userId: string, i: number, stored: Record<string, unknown>, at: Date) => ({
  id: crypto.randomUUID(),
  kind: 'request-run-results',
  label: `old ${i}`,
  collectionId: null,
  collectionName: null,
  requestName: 'Health',
  summaryPassed: 1,
  summaryFailed: 0,
  summarySkipped: 0,
  payload: stored,
  createdAt: at.toISOString(),
  createdByUserId: userId,
  sizeBytes: null,
});

/** What the hub counts for a run: label and payload as JSON, in UTF-8 bytes. */
const sizeOf = (run: { label: string; payload: unknown }) =>
  Buffer.byteLength(run.label) + Buffer.byteLength(JSON.stringify(run.payload));

describe.each(allDrivers())('run result limits on %s', (driver) => {
  const t = useTestHub(driver, {
    config: { runResults: { maxPerUser: MAX_COUNT, maxBytesPerUser: MAX_BYTES } },
  });
  const h = fixtures(t);
  const upload = (token: string, body: Record<string, unknown> = { payload: payload() }) =>
    t.request('POST', '/run-results', { token, body });
  const usage = (userId: string) => t.request('GET', `/admin/users/${userId}/run-results/usage`);

  it('refuses the run past runResults.maxPerUser with 409 naming the limit, and a delete frees room', async () => {
    const author = await h.user({});
    const runs = [];
    for (let i = 0; i < MAX_COUNT; i++) {
      const res = await upload(author.token);
      expect(res.status).toBe(200);
      runs.push(res.body);
    }
    const refused = await upload(author.token);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      error: `run results: ${MAX_COUNT} of ${MAX_COUNT} stored for this user (runResults.maxPerUser); delete some first.`,
      code: 'conflict',
    });
    expect(
      (await t.request('GET', '/run-results', { token: author.token })).body.runResults,
    ).toHaveLength(MAX_COUNT);

    expect(
      (await t.request('DELETE', `/run-results/${runs[0].id}`, { token: author.token })).status,
    ).toBe(204);
    expect((await upload(author.token)).status).toBe(200);
    expect((await upload(author.token)).status).toBe(409);
    // An admin's delete frees room too.
    expect((await t.request('DELETE', `/admin/run-results/${runs[1].id}`)).status).toBe(204);
    expect((await upload(author.token)).status).toBe(200);
    expect((await usage(author.id)).body).toMatchObject({ count: MAX_COUNT });
  });

  it('refuses a run that would take the user past runResults.maxBytesPerUser, naming it and the figures', async () => {
    const author = await h.user({});
    const big = await upload(author.token, { label: 'big', payload: payload('x'.repeat(15_000)) });
    expect(big.status).toBe(200);
    const used = sizeOf(big.body);
    const second = { label: 'second', payload: payload('y'.repeat(6_000)) };
    const refused = await upload(author.token, second);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe(
      `run results: ${used} of ${MAX_BYTES} bytes stored for this user and this one takes ` +
        `${sizeOf(second)} (runResults.maxBytesPerUser); delete some first.`,
    );
    // Another user's room is their own.
    const other = await h.user({});
    expect((await upload(other.token, second)).status).toBe(200);
    expect(
      (await t.request('DELETE', `/run-results/${big.body.id}`, { token: author.token })).status,
    ).toBe(204);
    expect((await upload(author.token, second)).status).toBe(200);
  });

  it('never stores more than the limit when uploads of one user race at its edge', async () => {
    const author = await h.user({});
    expect((await upload(author.token)).status).toBe(200);
    const statuses = (await Promise.all(Array.from({ length: 8 }, () => upload(author.token)))).map(
      (res) => res.status,
    );
    expect(statuses.filter((status) => status === 200)).toHaveLength(MAX_COUNT - 1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(8 - (MAX_COUNT - 1));
    const listed = (await t.request('GET', '/run-results', { token: author.token })).body;
    expect(listed.runResults).toHaveLength(MAX_COUNT);
    expect((await usage(author.id)).body.count).toBe(MAX_COUNT);
  });

  it('gives admins the count and bytes of a user against the limits, and nobody else', async () => {
    const author = await h.user({});
    const empty = await usage(author.id);
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({
      userId: author.id,
      count: 0,
      bytes: 0,
      limits: { count: MAX_COUNT, bytes: MAX_BYTES },
    });
    const first = (await upload(author.token, { label: 'één', payload: payload('ü') })).body;
    const second = (await upload(author.token)).body;
    const res = await usage(author.id);
    expect(res.body).toMatchObject({ count: 2, bytes: sizeOf(first) + sizeOf(second) });
    await t.request('DELETE', `/run-results/${first.id}`, { token: author.token });
    expect((await usage(author.id)).body).toMatchObject({ count: 1, bytes: sizeOf(second) });
    expect(
      (
        await t.request('GET', `/admin/users/${author.id}/run-results/usage`, {
          token: author.token,
        })
      ).status,
    ).toBe(403);
    expect((await usage(crypto.randomUUID())).status).toBe(404);
  });

  it('counts runs stored before the limits existed, and frees their room when deleted', async () => {
    const author = await h.user({});
    const stored = payload('z'.repeat(1_000));
    // Rows as the previous version wrote them: no size, and no usage row for the user.
    const rows = Array.from({ length: MAX_COUNT }, (_, i) =>
      oldRun(author.id, i, stored, new Date(Date.UTC(2025, 0, 1 + i))),
    );
    await t.store().table(runResultsTable).insertMany(rows);
    const expected = rows.reduce((sum, row) => sum + sizeOf(row), 0);
    expect((await usage(author.id)).body).toMatchObject({ count: MAX_COUNT, bytes: expected });
    expect((await upload(author.token)).status).toBe(409);
    const [oldest] = (
      await t.request('GET', '/run-results', { token: author.token })
    ).body.runResults.slice(-1);
    expect(
      (await t.request('DELETE', `/run-results/${oldest.id}`, { token: author.token })).status,
    ).toBe(204);
    expect((await usage(author.id)).body.count).toBe(MAX_COUNT - 1);
    const fresh = await upload(author.token);
    expect(fresh.status).toBe(200);
    expect((await usage(author.id)).body).toMatchObject({
      count: MAX_COUNT,
      bytes: expected - sizeOf({ label: oldest.label, payload: stored }) + sizeOf(fresh.body),
    });
  });

  it('counts every old run of a user who has more than one page of them', async () => {
    const author = await h.user({});
    const stored = payload();
    // Pairs share a time, so pages also break between rows of one instant.
    const rows = Array.from({ length: 250 }, (_, i) =>
      oldRun(author.id, i, stored, new Date(Date.UTC(2025, 0, 1, 0, 0, Math.floor(i / 2)))),
    );
    await t.store().table(runResultsTable).insertMany(rows);
    const bytes = rows.reduce((sum, row) => sum + sizeOf(row), 0);
    expect((await usage(author.id)).body).toMatchObject({ count: 250, bytes });
  });

  it('answers several users at once, in the order asked, old runs and users without runs included', async () => {
    const [recent, older, none] = [await h.user({}), await h.user({}), await h.user({})];
    const run = (await upload(recent.token)).body;
    const stored = payload('o');
    const old = oldRun(older.id, 0, stored, new Date(Date.UTC(2025, 1, 1)));
    await t.store().table(runResultsTable).insertMany([old]);
    const ids = [none.id, recent.id, older.id, 'no-such-user'];
    const res = await t.request('GET', `/admin/run-results/usage?userIds=${ids.join(',')}`);
    expect(res.status).toBe(200);
    const limits = { count: MAX_COUNT, bytes: MAX_BYTES };
    expect(res.body.users).toEqual([
      { userId: none.id, count: 0, bytes: 0, limits },
      { userId: recent.id, count: 1, bytes: sizeOf(run), limits },
      { userId: older.id, count: 1, bytes: sizeOf(old), limits },
      { userId: 'no-such-user', count: 0, bytes: 0, limits },
    ]);
    expect(
      (
        await t.request('GET', `/admin/run-results/usage?userIds=${recent.id}`, {
          token: recent.token,
        })
      ).status,
    ).toBe(403);
  });

  it.each([
    ['', 'userIds: must be comma-separated ids of at most 128 characters, none empty'],
    ['a,,b', 'userIds: must be comma-separated ids of at most 128 characters, none empty'],
    [
      Array.from({ length: 101 }, (_, i) => `u${i}`).join(','),
      'userIds: must name at most 100 ids',
    ],
  ])('refuses the list of users %#, naming userIds', async (ids, message) => {
    const res = await t.request('GET', `/admin/run-results/usage?userIds=${ids}`);
    expect([res.status, res.body.error]).toEqual([400, message]);
  });
});

describe('run result limits across a reload', () => {
  let dir: string;
  let file: string;
  const BASE = { logging: { level: 'silent' } };
  const write = (runResults: Record<string, number>) =>
    writeFile(file, stringify({ ...BASE, runResults }));
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hub-limits-'));
    file = join(dir, 'server.yaml');
    await write({ maxPerUser: 1 });
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const t = useTestHub(EMBEDDED_DRIVER, () => ({
    config: { ...BASE, runResults: { maxPerUser: 1 } },
    configPath: file,
  }));
  const h = fixtures(t);
  const upload = (token: string) =>
    t.request('POST', '/run-results', { token, body: { payload: payload() } });

  it('applies new limits at once, and 0 as no limit', async () => {
    const author = await h.user({});
    expect((await upload(author.token)).status).toBe(200);
    expect((await upload(author.token)).status).toBe(409);

    await write({ maxPerUser: 2 });
    expect((await t.request('POST', '/admin/config/reload')).status).toBe(200);
    expect((await upload(author.token)).status).toBe(200);
    const refused = await upload(author.token);
    expect([refused.status, refused.body.error]).toEqual([
      409,
      'run results: 2 of 2 stored for this user (runResults.maxPerUser); delete some first.',
    ]);

    await write({ maxPerUser: 0, maxBytesPerUser: 0 });
    expect((await t.request('POST', '/admin/config/reload')).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await upload(author.token)).status).toBe(200);
    const figures = await t.request('GET', `/admin/users/${author.id}/run-results/usage`);
    expect(figures.body).toMatchObject({ count: 5, limits: { count: null, bytes: null } });
  });
});
