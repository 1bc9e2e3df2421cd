/**
 * Redis stops answering under load: the hub reaches Redis (HUB_TEST_REDIS_URL) through an in-test
 * TCP proxy that holds every byte for 8 s while 8 client loops call it, with the default 2 s
 * `redis.connectTimeoutMillis` (also the command timeout). Authentication fails closed with 503;
 * after the first timeout the throttle store's circuit breaker answers at once (with
 * `Retry-After`), `/readyz` names the open circuit, and once the proxy forwards again the hub
 * serves 200 shortly after. Runs with the Redis suites (and always under CI=true).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, sleep } from '../helpers/async.ts';
import { useTestHub } from '../helpers/hub.ts';
import { redisSection, REDIS_URL_VAR, requireService } from '../helpers/services.ts';
import { expectFastOutage, startClientLoops } from './client-loops.ts';
import { recordCrashes, startFaultProxy, type FaultProxy } from './support.ts';

const STALL_MS = 8000;
const CLIENTS = 8;

describe.runIf(requireService(REDIS_URL_VAR))('a stalled Redis under load', () => {
  let proxy: FaultProxy;
  beforeAll(async () => {
    const { host, port } = redisSection();
    proxy = await startFaultProxy(host, port);
  });
  afterAll(async () => {
    proxy?.resume();
    await proxy?.close();
  });
  const t = useTestHub('sqlite', () => ({
    config: { redis: redisSection({ host: '127.0.0.1', port: proxy.port }) },
  }));
  const crashes = recordCrashes();
  afterAll(() => crashes.dispose());

  it('answers 503 at once after the first timeout while Redis stalls, says so on /readyz, and serves 200 again shortly after', async () => {
    const owner = await t.createUser({ collectionAccess: ['*'] });
    const list = () => t.request('GET', '/collections', { token: owner.token });
    await eventually(async () => (await list()).status === 200, 5000, 'a first 200');
    const clients = startClientLoops(CLIENTS, list);
    await sleep(500);

    proxy.pause();
    const stalledAt = Date.now();
    let readyDuring: { status: number; body: any } | undefined;
    try {
      await eventually(() => clients.answers.some((a) => a.status === 503), 5000, 'the first 503');
      await sleep(500);
      readyDuring = await t.request('GET', '/readyz', { token: null });
      await sleep(Math.max(0, STALL_MS - (Date.now() - stalledAt)));
    } finally {
      proxy.resume();
    }
    const resumedAt = Date.now();
    await eventually(
      () => clients.answers.some((a) => a.status === 200 && a.answeredAt >= resumedAt),
      10_000,
      'a 200 after the stall',
    );
    await sleep(1000);
    const answers = await clients.stop();

    expectFastOutage(
      `redis stalled ${STALL_MS} ms, ${CLIENTS} clients`,
      answers,
      stalledAt,
      resumedAt,
      1000,
    );
    expect(readyDuring?.status).toBe(503);
    expect(readyDuring?.body).toMatchObject({
      error: expect.stringContaining('circuit open: redis'),
      checks: { redis: 'circuit open', database: 'ok' },
    });
    expect((await t.request('GET', '/readyz', { token: null })).status).toBe(200);
    expect(crashes.errors).toEqual([]);
  });
});
