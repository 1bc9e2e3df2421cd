/**
 * A client whose token is blocked, refused by the Node server itself (http/blocked.ts): the same
 * answer, request id, access line and counts as the app's refusal, only where the app's answer is
 * certain, and across two instances sharing Redis without counting anything twice.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../kernel/identity/secrets.ts';
import { createMemoryThrottleStore } from '../../kernel/throttle/memory.ts';
import { KNOWN_BLOCK_MS, createRedisThrottleStore } from '../../kernel/throttle/redis.ts';
import { EMBEDDED_DRIVER } from '../helpers/drivers.ts';
import { useTestDriver, withTestHub, type StartTestHubOptions } from '../helpers/hub.ts';
import { rawRequest } from '../helpers/net.ts';
import { servedHub } from '../helpers/served.ts';
import { redisSection, REDIS_URL_VAR, requireService } from '../helpers/services.ts';

const BAD = 'hbk_blocked-fast-path-token';
const throttling = { maxFailures: 3, blockSeconds: 120, maxFailuresPerIp: 0 };

/** GET over a real socket, with the bad token unless other headers are given. */
const get = (port: number, path: string, headers: Record<string, string> = {}) =>
  rawRequest(port, { path, headers: { authorization: `Bearer ${BAD}`, ...headers } });

describe('refusals of a blocked client written by the Node server itself', () => {
  const db = useTestDriver(EMBEDDED_DRIVER);

  /** A hub on the suite's database served on a free port; its access lines. */
  const served = async (
    options: Partial<StartTestHubOptions>,
    run: Parameters<typeof servedHub>[1],
  ) =>
    (await servedHub({ driver: db.driver, ...options }, run)).filter(
      (entry) => entry.msg === 'request',
    );

  /** Fails the bad token until it is blocked: three 401s, then the app's first 429. */
  async function block(port: number, path = '/collections') {
    for (let i = 0; i < 3; i++) expect((await get(port, path)).status).toBe(401);
    return get(port, path);
  }

  it('answers a blocked token without the app: same status, body and headers, its own request id, access line and counts', async () => {
    let ids: unknown[] = [];
    const entries = await served(
      { throttle: createMemoryThrottleStore(), config: { redis: throttling } },
      async (port, t, throughApp) => {
        const viaApp = await block(port);
        expect(viaApp.status).toBe(429);
        const before = throughApp();
        const a = await get(port, '/collections');
        const b = await get(port, '/collections?page=2', { 'x-request-id': 'retry-9' });
        expect(throughApp()).toBe(before);
        for (const answer of [a, b]) {
          expect(answer.status).toBe(429);
          expect(answer.body).toBe(viaApp.body);
          expect(JSON.parse(answer.body)).toEqual({
            error: 'Too Many Requests',
            code: 'rate_limited',
          });
          for (const name of ['content-type', 'content-length'])
            expect([name, answer.headers[name]]).toEqual([name, viaApp.headers[name]]);
          expect(Number(answer.headers['retry-after'])).toBeGreaterThan(110);
          expect(Number(answer.headers['retry-after'])).toBeLessThanOrEqual(
            Number(viaApp.headers['retry-after']),
          );
        }
        ids = [a.headers['x-request-id'], b.headers['x-request-id']];
        expect(ids[0]).toMatch(/^[0-9a-f]{16}-[0-9a-z]+$/);
        expect(ids[1]).toBe('retry-9');
        const metrics = await t.hub.metrics.render();
        expect(metrics).toContain(
          'workspace_hub_http_requests_total{method="GET",route="/collections",status="429"} 3',
        );
        expect(metrics).toMatch(/workspace_hub_throttle_blocked_requests_total 3\b/);
      },
    );
    const refused = entries.filter((e) => e.status === 429);
    expect(refused).toHaveLength(3);
    // The Node server's lines have the app's fields, in the app's order.
    for (const entry of refused.slice(1))
      expect(Object.keys(entry)).toEqual(Object.keys(refused[0]));
    expect(refused.slice(1).map((e) => e.requestId)).toEqual(ids);
    for (const entry of refused)
      expect(entry).toMatchObject({
        level: 'info',
        method: 'GET',
        route: '/collections',
        status: 429,
        bytes: Buffer.byteLength(
          JSON.stringify({ error: 'Too Many Requests', code: 'rate_limited' }),
        ),
        tenant: '__default__',
      });
    expect(JSON.stringify(entries)).not.toContain('page=2');
  });

  it('leaves to the app every request whose answer it cannot be sure of', async () => {
    await served(
      {
        throttle: createMemoryThrottleStore(),
        config: { redis: throttling, multitenancy: { enabled: true } },
      },
      async (port, t, throughApp) => {
        expect((await block(port)).status).toBe(429);
        const cases: [Parameters<typeof rawRequest>[1], number][] = [
          // Not yet refused by the app on this path: it learns the route from that refusal.
          [{ path: '/environments' }, 429],
          [{ path: '/collections', headers: { 'x-hub-tenant': 'nobody-here' } }, 404],
          [{ path: '/collections', headers: { 'x-harbor-tenant': 'Bad Id!' } }, 400],
          [{ path: '/collections', headers: { 'content-length': '0' } }, 429],
          [{ path: '/collections', method: 'HEAD' }, 429],
          [{ path: '/collections', method: 'POST' }, 429],
          [{ path: '/%63ollections' }, 429],
          [{ path: '/collections', headers: { host: 'LOCALHOST' } }, 429],
          [{ path: '/collections', headers: { authorization: `Bearer ${t.adminToken}` } }, 200],
          [{ path: '/collections', headers: { authorization: 'Bearer hbk_another-token' } }, 401],
          // Node keeps only the first Authorization; the app reads both, so no bearer at all.
          [
            { path: '/collections', headers: { authorization: [`Bearer ${BAD}`, 'Bearer x'] } },
            401,
          ],
        ];
        for (const [options, status] of cases) {
          const before = throughApp();
          const answer = await rawRequest(port, {
            ...options,
            headers: { authorization: `Bearer ${BAD}`, ...options.headers },
          });
          expect([options, answer.status]).toEqual([options, status]);
          expect(throughApp()).toBe(before + 1);
        }
        // Learned: the next refusal on that path is the Node server's.
        const before = throughApp();
        expect((await get(port, '/environments')).status).toBe(429);
        expect(throughApp()).toBe(before);
      },
    );
  });

  it('refuses a blocked token-less client, and a reset lets the token in again', async () => {
    const throttle = createMemoryThrottleStore();
    await served({ throttle, config: { redis: throttling } }, async (port, t, throughApp) => {
      const bare = { authorization: '' };
      for (let i = 0; i < 3; i++) expect((await get(port, '/collections', bare)).status).toBe(401);
      expect((await get(port, '/collections', bare)).status).toBe(429);
      let before = throughApp();
      expect((await get(port, '/collections', bare)).status).toBe(429);
      expect(throughApp()).toBe(before);
      // The admin's token from the same address is another key.
      const admin = await get(port, '/collections', { authorization: `Bearer ${t.adminToken}` });
      expect(admin.status).toBe(200);
      expect((await block(port)).status).toBe(429);
      await throttle.reset(`127.0.0.1:${sha256Hex(BAD)}`);
      before = throughApp();
      expect((await get(port, '/collections')).status).toBe(401);
      expect(throughApp()).toBe(before + 1);
    });
  });

  describe.runIf(requireService(REDIS_URL_VAR))('with two instances sharing Redis', () => {
    const redis = redisSection(throttling);
    let admin: Redis;
    beforeAll(async () => {
      admin = new Redis({ host: redis.host, port: redis.port, lazyConnect: true });
      await admin.connect();
    });
    afterAll(async () => {
      const keys = await admin.keys(`${redis.keyPrefix}*`);
      if (keys.length > 0) await admin.del(...keys);
      await admin.quit();
    });

    it('refuses on one what the other blocked, counts nothing twice, and follows an unblock within KNOWN_BLOCK_MS', async () => {
      const key = `127.0.0.1:${sha256Hex(BAD)}`;
      const blockKey = `${redis.keyPrefix}throttle:block:${key}`;
      await withTestHub(
        { driver: db.driver, config: { redis }, ip: '127.0.0.1' },
        async (first) => {
          for (let i = 0; i < 3; i++)
            expect((await first.request('GET', '/collections', { token: BAD })).status).toBe(401);
          expect(await admin.exists(blockKey)).toBe(1);
          let now = 1_000_000;
          const throttle = createRedisThrottleStore(first.hub.config().redis!, {
            now: () => now,
          });
          await served({ throttle, config: { redis } }, async (port, _t, throughApp) => {
            // The second instance asks Redis once, then answers from what it was told.
            expect((await get(port, '/collections')).status).toBe(429);
            const before = throughApp();
            for (let i = 0; i < 5; i++) expect((await get(port, '/collections')).status).toBe(429);
            expect(throughApp()).toBe(before);
            expect(await admin.keys(`${redis.keyPrefix}throttle:fail:*`)).toEqual([]);
            // Lifted on the first instance: the second follows once its memory has lapsed.
            await admin.del(blockKey);
            now += KNOWN_BLOCK_MS;
            expect((await get(port, '/collections')).status).toBe(401);
            expect(throughApp()).toBe(before + 1);
          });
          await throttle.close();
        },
      );
    });
  });
});
