/**
 * A database that stops answering (paused, a half-open connection) while the hub serves: an
 * in-test TCP proxy in front of PostgreSQL (HUB_TEST_PG_URL) or MariaDB (HUB_TEST_MYSQL_URL) holds
 * every byte. With `db.queryTimeoutMillis` and `db.acquireTimeoutMillis` at 1 s, requests get a 503
 * within a few seconds instead of waiting for the stall to end, and once the proxy forwards again
 * the same hub serves 200s without a restart. Skipped only when the variable is unset outside CI.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT_ID } from '../../kernel/identity/tenants.ts';
import { usersTable } from '../../kernel/identity/tables.ts';
import { StorageError } from '../../kernel/storage/contract.ts';
import { driverAvailable } from '../helpers/databases.ts';
import { eventually, sleep } from '../helpers/async.ts';
import { useUser } from '../helpers/fixtures.ts';
import { recordCrashes, useHubBehindProxy } from './support.ts';

const BOUND_MS = 1000;

for (const kind of ['postgres', 'mysql'] as const) {
  describe.skipIf(!driverAvailable(kind))(`a stalled database (${kind})`, () => {
    const behind = useHubBehindProxy(kind, {
      max: 4,
      queryTimeoutMillis: BOUND_MS,
      acquireTimeoutMillis: BOUND_MS,
    });
    const { t } = behind;
    const owner = useUser(t, { collectionAccess: ['*'] });
    const crashes = recordCrashes();
    afterAll(() => crashes.dispose());

    const timed = async (run: () => Promise<{ status: number; body: unknown }>) => {
      const start = Date.now();
      const res = await run();
      return { ...res, ms: Date.now() - start };
    };
    const list = () => t.request('GET', '/collections', { token: owner.token });

    it('answers 503 with a JSON error within a few seconds while the database stalls, then 200 again after it resumes', async () => {
      expect((await list()).status).toBe(200);
      behind.proxy.pause();
      try {
        // More requests than pooled connections: some wait for a connection, some for an answer.
        const results = await Promise.all(Array.from({ length: 10 }, () => timed(list)));
        for (const res of results) {
          expect(res.status).toBe(503);
          expect(res.body).toEqual({ error: 'Service Unavailable', code: 'service_unavailable' });
          // A bound, not a speed claim: without one these waited for the whole stall.
          expect(res.ms).toBeLessThan(BOUND_MS * 4);
        }
        const ms = results.map((r) => r.ms).sort((a, b) => a - b);
        console.info(
          `[faults] ${kind} stall: bound ${BOUND_MS} ms, 503 after min ${ms[0]} / median ${ms[5]} / max ${ms[9]} ms`,
        );
        // Still stalled: a later request is bounded too.
        await sleep(500);
        const later = await timed(list);
        expect(later.status).toBe(503);
        expect(later.ms).toBeLessThan(BOUND_MS * 4);
      } finally {
        behind.proxy.resume();
      }
      const recovery = await eventually(
        async () => (await list()).status === 200,
        15_000,
        'a 200 after the stall',
      );
      console.info(`[faults] ${kind} stall: first 200 ${recovery} ms after resume`);
      const after = await Promise.all(Array.from({ length: 8 }, () => list()));
      expect(after.map((r) => r.status)).toEqual(Array(8).fill(200));
      expect(crashes.errors).toEqual([]);
    });

    it('never hands a timed-out connection to the next request: every row read after the stall is its own', async () => {
      // A late answer to a timed-out statement must not be read as the answer to another one.
      const names = Array.from({ length: 6 }, (_, i) => `stall-${kind}-${i}`);
      for (const name of names)
        expect(
          (await t.request('POST', '/collections', { token: owner.token, body: { name } })).status,
        ).toBe(200);
      behind.proxy.pause();
      const stalled = Promise.all(Array.from({ length: 6 }, () => list()));
      await sleep(BOUND_MS * 1.5);
      behind.proxy.resume();
      await stalled;
      // The circuit breaker opened at the first timeout; it closes once its probe is answered.
      await eventually(async () => (await list()).status === 200, 5000, 'a 200 after the stall');
      for (let i = 0; i < 20; i++) {
        const res = await list();
        expect(res.status).toBe(200);
        const got = (res.body.collections ?? res.body).map((c: { name: string }) => c.name);
        expect(got).toEqual(expect.arrayContaining(names));
      }
      expect(crashes.errors).toEqual([]);
    });

    // PostgreSQL only: its statement_timeout is what stops the server-side wait.
    if (kind === 'postgres')
      it('fails a statement stuck on a lock after the bound, and the server stops waiting too', async () => {
        const store = t.driver.forTenant(DEFAULT_TENANT_ID);
        let release!: () => void;
        const held = new Promise<void>((resolve) => (release = resolve));
        let locked!: () => void;
        const isLocked = new Promise<void>((resolve) => (locked = resolve));
        const holder = store.transaction(async (tx) => {
          await tx.table(usersTable).getForUpdate(t.adminId);
          locked();
          await held;
        });
        await isLocked;
        try {
          const start = Date.now();
          const error = await store
            .transaction((tx) => tx.table(usersTable).getForUpdate(t.adminId))
            .then(
              () => null,
              (e: unknown) => e,
            );
          expect(error).toBeInstanceOf(StorageError);
          expect((error as StorageError).code).toBe('unavailable');
          expect(Date.now() - start).toBeLessThan(BOUND_MS * 4);
          // statement_timeout ended the wait on the server; a dropped socket alone would leave the
          // backend queued on the lock until the holder commits.
          const { default: pg } = await import('pg');
          const admin = new pg.Client({ connectionString: process.env.HUB_TEST_PG_URL });
          await admin.connect();
          try {
            const name = (t.database.config as { database: string }).database;
            await eventually(
              async () => {
                const waiting = await admin.query(
                  "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock'",
                  [name],
                );
                return waiting.rows[0].n === 0;
              },
              3000,
              'no backend waiting on the lock',
            );
          } finally {
            await admin.end();
          }
        } finally {
          release();
          await holder;
        }
        expect(crashes.errors).toEqual([]);
      });
  });
}
