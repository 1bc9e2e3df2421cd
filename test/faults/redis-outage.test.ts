/**
 * Redis dies under the hub and comes back: a private `redis-server` child on a free port (never the
 * shared one) serves the throttle and the notices fan-out, is SIGKILLed while a notice stream is
 * open, then started again on the same port. The process survives, requests get 503 with the one
 * JSON message while Redis is down, the same hub recovers by itself (authentication and the pub/sub
 * fan-out), and the log holds a few transition lines rather than one per request. Runs with the
 * Redis suites (HUB_TEST_REDIS_URL set, and always under CI=true); needs `redis-server` on PATH.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpDrivers } from '../helpers/drivers.ts';
import { uniqueName, useTestHub } from '../helpers/hub.ts';
import { eventually } from '../helpers/async.ts';
import { REDIS_URL_VAR, requireService } from '../helpers/services.ts';
import { sseReader } from '../helpers/sse.ts';
import { captureLog, privateRedis, recordCrashes, type RedisChild } from './support.ts';

describe.runIf(requireService(REDIS_URL_VAR))(
  'a Redis outage under the throttle and the notices fan-out',
  () => {
    let redis: RedisChild;
    const captured = captureLog();
    beforeAll(async () => {
      redis = await privateRedis();
      await redis.start();
    });
    afterAll(async () => {
      await redis?.kill();
    });
    const t = useTestHub(httpDrivers()[0]!, () => ({
      log: captured.log,
      config: {
        redis: {
          host: '127.0.0.1',
          port: redis.port,
          keyPrefix: `hubfault:${randomUUID().slice(0, 8)}:`,
          connectTimeoutMillis: 500,
        },
      },
    }));
    const crashes = recordCrashes();
    afterAll(() => crashes.dispose());

    const openStream = (token: string) =>
      t.hub.app.request('/notices/stream', { headers: { authorization: `Bearer ${token}` } });

    it('answers 503 while Redis is down, recovers auth and notice delivery after it restarts, and never crashes', async () => {
      const owner = await t.createUser({ collectionAccess: ['*'] });
      const readerName = uniqueName('reader');
      const reader = await t.createUser({ name: readerName, collectionAccess: ['*'] });
      const collection = (
        await t.request('POST', '/collections', {
          token: owner.token,
          body: { name: uniqueName('c') },
        })
      ).body;
      await eventually(
        async () => {
          const res = await openStream(reader.token);
          if (res.status === 200) await res.body?.cancel();
          return res.status === 200;
        },
        10_000,
        'the notice subscriber',
      );
      const openBefore = sseReader(await openStream(reader.token));
      await openBefore.until(': connected');
      const linesBefore = captured.entries().length;

      await redis.kill();
      const killedAt = Date.now();
      await eventually(
        async () => (await t.request('GET', '/collections', { token: owner.token })).status === 503,
        5000,
        'a 503',
      );
      const firstUnavailableMs = Date.now() - killedAt;
      const during = await Promise.all(
        Array.from({ length: 30 }, () => t.request('GET', '/collections', { token: owner.token })),
      );
      for (const res of during) {
        expect(res.status).toBe(503);
        expect(res.body).toEqual({ error: 'Service Unavailable', code: 'service_unavailable' });
      }
      const stream = await openStream(reader.token);
      expect(stream.status).toBe(503);
      expect(await stream.json()).toEqual({
        error: 'Service Unavailable',
        code: 'service_unavailable',
      });

      await redis.start();
      const restartedAt = Date.now();
      await eventually(
        async () => (await t.request('GET', '/collections', { token: owner.token })).status === 200,
        10_000,
        'auth after the restart',
      );
      const authBackMs = Date.now() - restartedAt;
      let after: ReturnType<typeof sseReader> | null = null;
      await eventually(
        async () => {
          const res = await openStream(reader.token);
          if (res.status !== 200) return false;
          after = sseReader(res);
          return true;
        },
        10_000,
        'the notice stream after the restart',
      );
      await after!.until(': connected');
      const comment = await t.request('POST', `/collections/${collection.id}/discussions`, {
        token: owner.token,
        body: { body: `hi @${readerName}` },
      });
      expect(comment.status, comment.text).toBe(200);
      await after!.until('notice.created', 5000);
      console.info(
        `[faults] redis: first 503 ${firstUnavailableMs} ms after SIGKILL; auth back ${authBackMs} ms after restart`,
      );
      await after!.cancel();
      await openBefore.cancel().catch(() => undefined);

      expect(crashes.errors).toEqual([]);
      const lines = captured.entries().slice(linesBefore);
      // One line per Redis connection (throttle, notice publisher, notice subscriber) and one for the
      // failing requests, however many requests failed.
      const errors = lines.filter((e) => e.level === 'error');
      expect(errors.length).toBeGreaterThanOrEqual(1);
      expect(errors.length).toBeLessThanOrEqual(4);
      expect(lines.filter((e) => e.msg?.startsWith('Redis unavailable') && e.cause)).toHaveLength(
        1,
      );
      await eventually(
        () => captured.entries().some((e) => e.msg?.startsWith('Redis available again after')),
        5000,
        'the back-up line',
      );
    });
  },
);
