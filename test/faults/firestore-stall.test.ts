/**
 * A stalled Firestore: the hub's client reaches the emulator (HUB_TEST_FIRESTORE_EMULATOR_HOST)
 * through an in-test TCP proxy that stops forwarding. With `db.timeoutMillis` at 1 s, requests get
 * a 503 within a few seconds instead of waiting on the client's own deadlines and retries, and the
 * same hub serves 200s once the proxy forwards again. Under load, after the first timeout the
 * circuit breaker answers at once and `/readyz` names it. Skipped only when the variable is unset
 * outside CI; under CI=true it must be set.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { driverAvailable } from '../helpers/databases.ts';
import { eventually, sleep } from '../helpers/async.ts';
import { useUser } from '../helpers/fixtures.ts';
import { expectFastOutage, startClientLoops } from './client-loops.ts';
import { recordCrashes, useHubBehindProxy } from './support.ts';

const BOUND_MS = 1000;

describe.skipIf(!driverAvailable('firestore'))('a stalled database (firestore)', () => {
  const behind = useHubBehindProxy('firestore', { timeoutMillis: BOUND_MS });
  const { t } = behind;
  const owner = useUser(t, { collectionAccess: ['*'] });
  const crashes = recordCrashes();
  afterAll(() => crashes.dispose());

  it('answers 503 with a JSON error within a few seconds while the emulator stalls, then 200 again after it resumes', async () => {
    const list = () => t.request('GET', '/collections', { token: owner.token });
    expect((await list()).status).toBe(200);
    behind.proxy.pause();
    let results: Array<{ status: number; body: unknown; ms: number }>;
    try {
      results = await Promise.all(
        Array.from({ length: 6 }, async () => {
          const start = Date.now();
          const res = await list();
          return { status: res.status, body: res.body, ms: Date.now() - start };
        }),
      );
    } finally {
      behind.proxy.resume();
    }
    for (const res of results) {
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ error: 'Service Unavailable', code: 'service_unavailable' });
      expect(res.ms).toBeLessThan(BOUND_MS * 4);
    }
    const recovery = await eventually(
      async () => (await list()).status === 200,
      20_000,
      'a 200 after the stall',
    );
    const ms = results.map((r) => r.ms).sort((a, b) => a - b);
    console.info(
      `[faults] firestore stall: bound ${BOUND_MS} ms, 503 after min ${ms[0]} / max ${ms.at(-1)} ms; first 200 ${recovery} ms after resume`,
    );
    expect(crashes.errors).toEqual([]);
  });

  it('answers 503 at once after the first timeout while 8 clients call it, says so on /readyz, and serves 200 again shortly after', async () => {
    const STALL_MS = 6000;
    const list = () => t.request('GET', '/collections', { token: owner.token });
    await eventually(async () => (await list()).status === 200, 20_000, 'a 200 before');
    const clients = startClientLoops(8, list);
    await sleep(500);
    behind.proxy.pause();
    const stalledAt = Date.now();
    let readyDuring: { status: number; body: any } | undefined;
    try {
      await eventually(
        () => clients.answers.some((a) => a.status === 503),
        BOUND_MS * 5,
        'the first 503',
      );
      await sleep(500);
      readyDuring = await t.request('GET', '/readyz', { token: null });
      await sleep(Math.max(0, STALL_MS - (Date.now() - stalledAt)));
    } finally {
      behind.proxy.resume();
    }
    const resumedAt = Date.now();
    await eventually(
      () => clients.answers.some((a) => a.status === 200 && a.answeredAt >= resumedAt),
      20_000,
      'a 200 after the stall',
    );
    await sleep(1000);
    const answers = await clients.stop();
    expectFastOutage(
      `firestore stalled ${STALL_MS} ms, 8 clients, timeout ${BOUND_MS} ms`,
      answers,
      stalledAt,
      resumedAt,
      BOUND_MS / 2,
    );
    expect(readyDuring?.status).toBe(503);
    expect(readyDuring?.body).toMatchObject({
      error: expect.stringContaining('circuit open: database'),
      checks: { database: 'circuit open' },
    });
    await eventually(
      async () => (await t.request('GET', '/readyz', { token: null })).status === 200,
      5000,
      'ready again',
    );
    expect(crashes.errors).toEqual([]);
  });
});
