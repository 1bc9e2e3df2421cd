/**
 * A stalled Firestore: the hub's client reaches the emulator (HUB_TEST_FIRESTORE_EMULATOR_HOST)
 * through an in-test TCP proxy that stops forwarding. With `db.timeoutMillis` at 1 s, requests get
 * a 503 within a few seconds instead of waiting on the client's own deadlines and retries, and the
 * same hub serves 200s once the proxy forwards again. Skipped only when the variable is unset
 * outside CI; under CI=true it must be set.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { driverAvailable } from '../helpers/databases.ts';
import { eventually } from '../helpers/async.ts';
import { useUser } from '../helpers/fixtures.ts';
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
    // eslint-disable-next-line no-console
    console.info(
      `[faults] firestore stall: bound ${BOUND_MS} ms, 503 after min ${ms[0]} / max ${ms.at(-1)} ms; first 200 ${recovery} ms after resume`,
    );
    expect(crashes.errors).toEqual([]);
  });
});
