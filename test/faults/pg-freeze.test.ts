/**
 * A whole PostgreSQL server frozen under load: a private cluster (see private-postgres.ts) whose
 * postmaster and backends all get SIGSTOP for 15 s while 8 client loops call the hub, with the
 * default 5 s `db.acquireTimeoutMillis` / `db.queryTimeoutMillis`. The requests caught by the
 * freeze wait out the timeout once; after that the circuit breaker answers 503 at once (with
 * `Retry-After`), `/readyz` names the open circuit, and after SIGCONT the hub serves 200 again as
 * soon as its probe gets an answer. Needs the PostgreSQL server binaries and root (to run them as
 * the `postgres` user); the shared server is never touched.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { eventually, sleep } from '../helpers/async.ts';
import { useUser } from '../helpers/fixtures.ts';
import { useTestHub } from '../helpers/hub.ts';
import { expectFastOutage, startClientLoops } from './client-loops.ts';
import { privatePostgresAvailable, usePrivatePostgres } from './private-postgres.ts';
import { recordCrashes } from './support.ts';

const TIMEOUT_MS = 5000;
const FREEZE_MS = 15_000;
const CLIENTS = 8;

describe.skipIf(!privatePostgresAvailable())('a frozen PostgreSQL server (private cluster)', () => {
  const pg = usePrivatePostgres({
    acquireTimeoutMillis: TIMEOUT_MS,
    queryTimeoutMillis: TIMEOUT_MS,
  });
  const t = useTestHub(pg);
  const owner = useUser(t, { collectionAccess: ['*'] });
  const crashes = recordCrashes();
  afterAll(() => crashes.dispose());

  it('answers 503 at once after the first timeout while frozen, says so on /readyz, and serves 200 again shortly after SIGCONT', async () => {
    const list = () => t.request('GET', '/collections', { token: owner.token });
    expect((await list()).status).toBe(200);
    const clients = startClientLoops(CLIENTS, list);
    await sleep(500);

    pg.freeze();
    const frozenAt = Date.now();
    let readyDuring: { status: number; body: any } | undefined;
    try {
      // Once the first timeout has opened the breaker, readiness says why without waiting.
      await eventually(
        () => clients.answers.some((a) => a.status === 503),
        // Reads served from the read cache can keep answering 200 for a few seconds first.
        FREEZE_MS - 2000,
        'the first 503',
      );
      await sleep(1000);
      readyDuring = await t.request('GET', '/readyz', { token: null });
      await sleep(Math.max(0, FREEZE_MS - (Date.now() - frozenAt)));
    } finally {
      pg.thaw();
    }
    const thawedAt = Date.now();
    await eventually(
      () => clients.answers.some((a) => a.status === 200 && a.answeredAt >= thawedAt),
      10_000,
      'a 200 after SIGCONT',
    );
    await sleep(1000);
    const answers = await clients.stop();

    // Generous next to the goal (250 ms): the point is "well under the 5 s timeout".
    expectFastOutage(
      `postgres frozen ${FREEZE_MS} ms, ${CLIENTS} clients, timeouts ${TIMEOUT_MS} ms`,
      answers,
      frozenAt,
      thawedAt,
      1000,
    );
    expect(readyDuring?.status).toBe(503);
    expect(readyDuring?.body).toMatchObject({
      error: expect.stringContaining('circuit open: database'),
      checks: { database: 'circuit open' },
    });
    expect((await t.request('GET', '/readyz', { token: null })).status).toBe(200);
    expect(crashes.errors).toEqual([]);
  });
});
