/**
 * Retention: background pruning by `history.maxRevisionsPerRecord` and `history.keepDays` (on the
 * hub's clock, moved by the test), with the section applied by a reload; the audit log keeping
 * the events of pruned revisions for `auditKeepDays`; and export/import carrying revisions to
 * another database.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { createManualClock } from '../../kernel/clock.ts';
import { validateConfig } from '../../kernel/config/load.ts';
import { createHub } from '../../kernel/hub.ts';
import { collectTables } from '../../kernel/schema.ts';
import { silentLogger } from '../../kernel/log.ts';
import type { StorageDriver } from '../../kernel/storage/contract.ts';
import { createMemoryThrottleStore } from '../../kernel/throttle/memory.ts';
import { exportHub } from '../../kernel/storage/transfer.ts';
import { importHub } from '../../kernel/storage/transfer-import.ts';
import { plugins } from '../../plugins/index.ts';
import { eventually } from '../helpers/async.ts';
import { allDrivers, openTestDriver } from '../helpers/drivers.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { startTestHub, useTestHub } from '../helpers/hub.ts';

const BASE = { logging: { level: 'silent' } };

/** A hub on `driver` as `workspace-hub migrate` leaves it (no test admin added). */
const migrated = (driver: StorageDriver) =>
  createHub({
    config: validateConfig(BASE, {}, {}),
    plugins,
    driver,
    throttle: createMemoryThrottleStore(),
    log: silentLogger,
    migrate: true,
  });
const DAY = 86_400_000;

describe.each(allDrivers())('revision retention on %s', (driver) => {
  let dir: string;
  let file: string;
  const write = (history: Record<string, unknown>) =>
    writeFile(file, stringify({ ...BASE, history: { pruneIntervalSeconds: 1, ...history } }));
  const clock = createManualClock(new Date('2026-03-01T00:00:00.000Z'));
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hub-history-'));
    file = join(dir, 'server.yaml');
    await write({ keepDays: 0, maxRevisionsPerRecord: 3 });
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const t = useTestHub(driver, () => ({
    clock,
    configPath: file,
    config: {
      ...BASE,
      history: { keepDays: 0, maxRevisionsPerRecord: 3, pruneIntervalSeconds: 1 },
    },
  }));
  const h = fixtures(t);
  const versions = async (path: string) =>
    ((await t.request('GET', `${path}/revisions`)).body.revisions as any[]).map((r) => r.version);
  const auditVersions = async (id: string) =>
    ((await t.request('GET', `/admin/audit?targetId=${id}`)).body.events as any[]).map(
      (event) => event.details,
    );
  const reload = async () => {
    const outcome = await t.hub.reload();
    if (!outcome.ok) throw new Error(outcome.fatalError);
  };

  it('prunes all but the newest revisions per record, then by age once keepDays is reloaded', async () => {
    const col = await h.collection();
    const req = await h.request(col.id);
    for (let i = 0; i < 5; i++)
      await t.request('PUT', `/requests/${req.id}`, {
        body: { collectionId: col.id, url: `${i}` },
      });
    await eventually(
      async () => (await versions(`/requests/${req.id}`)).length === 3,
      10_000,
      'pruning by count',
    );
    expect(await versions(`/requests/${req.id}`)).toEqual([6, 5, 4]);
    // Two days later, with keepDays: 1 reloaded, only what is younger than a day stays.
    clock.advance(2 * DAY);
    await t.request('PUT', `/requests/${req.id}`, { body: { collectionId: col.id, url: 'new' } });
    await write({ keepDays: 1, maxRevisionsPerRecord: 3 });
    await reload();
    expect(t.hub.config().history.keepDays).toBe(1);
    await eventually(
      async () => (await versions(`/requests/${req.id}`)).length === 1,
      10_000,
      'pruning by age',
    );
    expect(await versions(`/requests/${req.id}`)).toEqual([7]);
    expect((await t.request('GET', `/requests/${req.id}`)).headers.get('etag')).toBe('"7"');
    // The audit log keeps the pruned changes' events (auditKeepDays, 365 by default).
    expect((await auditVersions(req.id)).map((event) => event.version)).toEqual([
      7, 6, 5, 4, 3, 2, 1,
    ]);
  });

  it('keeps no workspace event past history.auditKeepDays, pruned with its revision or not', async () => {
    await write({ keepDays: 0, maxRevisionsPerRecord: 1, auditKeepDays: 0 });
    await reload();
    const col = await h.collection();
    const req = await h.request(col.id);
    await t.request('PUT', `/requests/${req.id}`, { body: { collectionId: col.id, url: 'a' } });
    await eventually(
      async () => (await versions(`/requests/${req.id}`)).length === 1,
      10_000,
      'pruning by count',
    );
    expect(await auditVersions(req.id)).toHaveLength(2);
    // Two days on, with a one-day audit log: neither the copied event nor the kept revision shows.
    clock.advance(2 * DAY);
    await write({ keepDays: 0, maxRevisionsPerRecord: 1, auditKeepDays: 1 });
    await reload();
    await eventually(async () => (await auditVersions(req.id)).length === 0, 10_000, 'audit age');
    expect(await versions(`/requests/${req.id}`)).toEqual([2]);
  });
});

describe.each(allDrivers())('revisions in export and import from %s', (driver) => {
  const t = useTestHub(driver);
  const h = fixtures(t);

  it('carries every revision, and a deleted record can be restored after the import', async () => {
    const col = await h.collection();
    const req = await h.request(col.id, { url: 'https://one.test' });
    await t.request('PUT', `/requests/${req.id}`, { body: { collectionId: col.id, url: 'two' } });
    await t.request('DELETE', `/requests/${req.id}`);
    const before = (await t.request('GET', `/requests/${req.id}/revisions`)).body;
    expect(before.revisions).toHaveLength(3);

    const tables = collectTables(plugins);
    const chunks: string[] = [];
    await exportHub({
      driver: t.driver,
      tables,
      hubVersion: 'test',
      write: async (chunk) => void chunks.push(chunk),
    });
    const target = await openTestDriver('sqlite');
    try {
      await (await migrated(target.driver)).close();
      await importHub({
        driver: target.driver,
        tables,
        lines: (async function* () {
          yield* chunks.join('').split('\n').filter(Boolean);
        })(),
        reprovision: async () => (await migrated(target.driver)).close(),
      });
      const imported = await startTestHub({ driver: target.driver });
      try {
        const after = await imported.request('GET', `/requests/${req.id}/revisions`, {
          token: t.adminToken,
        });
        expect(after.body).toEqual(before);
        const back = await imported.request(
          'POST',
          `/requests/${req.id}/revisions/${before.revisions[0].id}/restore`,
          { token: t.adminToken },
        );
        expect(back.status, back.text).toBe(200);
        expect(back.body).toMatchObject({ id: req.id, url: 'two' });
      } finally {
        await imported.close();
      }
    } finally {
      await target.cleanup();
    }
  });
});
