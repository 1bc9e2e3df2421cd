/**
 * The Redis store against a real Redis at HUB_TEST_REDIS_URL. Skipped only when the variable is
 * unset outside CI; under CI=true a missing URL fails instead of passing silently.
 */
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../kernel/log.ts';
import { redisSchema, type RedisConfig } from '../../kernel/redis/config.ts';
import {
  ThrottleUnavailableError,
  type ThrottlePolicy,
  type ThrottleStore,
} from '../../kernel/throttle/contract.ts';
import { createRedisThrottleStore, KNOWN_BLOCK_MS } from '../../kernel/throttle/redis.ts';
import { closedPort } from '../helpers/net.ts';
import { redisSection, REDIS_URL_VAR, requireService } from '../helpers/services.ts';
import { describeThrottleStoreContract, uniqueKey } from './store-contract.ts';

const prefix = `hubtest:${randomUUID().slice(0, 8)}:`;
const policy: ThrottlePolicy = { maxFailures: 3, windowSeconds: 60, blockSeconds: 900 };

/** The `redis` section for the test server (or any other host/port), with this run's key prefix. */
function testConfig(overrides: Partial<Record<keyof RedisConfig, unknown>> = {}): RedisConfig {
  return redisSchema.parse(
    redisSection({ keyPrefix: prefix, connectTimeoutMillis: 500, ...overrides }),
  );
}

/** Expects every store operation to fail closed, and quickly. */
async function expectUnavailable(store: ThrottleStore, withinMillis: number): Promise<void> {
  const started = Date.now();
  await expect(store.blockedFor('203.0.113.7:none')).rejects.toBeInstanceOf(
    ThrottleUnavailableError,
  );
  await expect(store.recordFailure('203.0.113.7:none', policy)).rejects.toBeInstanceOf(
    ThrottleUnavailableError,
  );
  await expect(store.reset('203.0.113.7:none')).rejects.toBeInstanceOf(ThrottleUnavailableError);
  await expect(store.ping()).rejects.toBeInstanceOf(ThrottleUnavailableError);
  expect(Date.now() - started).toBeLessThan(withinMillis);
}

describe.runIf(requireService(REDIS_URL_VAR))('redis throttle store', () => {
  let admin: Redis;
  const open: ThrottleStore[] = [];
  const store = (
    config = testConfig(),
    options: Parameters<typeof createRedisThrottleStore>[1] = {},
  ) => {
    const created = createRedisThrottleStore(config, options);
    open.push(created);
    return created;
  };
  const keysOfRun = () => admin.keys(`${prefix}*`);

  beforeAll(async () => {
    const { host, port, password, db } = testConfig();
    admin = new Redis({ host, port, password, db, lazyConnect: true });
    await admin.connect();
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });
  afterAll(async () => {
    const keys = await keysOfRun();
    if (keys.length > 0) await admin.del(...keys);
    await admin.quit();
  });

  describeThrottleStoreContract('redis', () => store());

  it('reports itself as shared', () => {
    expect(store().kind).toBe('redis');
  });

  it('names its keys <keyPrefix>throttle:fail|block:<key> and never stores a raw token', async () => {
    const s = store();
    const token = 'hbk_raw-secret-that-must-not-appear';
    const key = `198.51.100.2:${'ab'.repeat(32)}`;
    await s.recordFailure(key, policy);
    expect(await admin.keys(`${prefix}*198.51.100.2*`)).toEqual([`${prefix}throttle:fail:${key}`]);
    await s.recordFailure(key, policy);
    await s.recordFailure(key, policy);
    expect(await admin.keys(`${prefix}*198.51.100.2*`)).toEqual([`${prefix}throttle:block:${key}`]);
    expect((await keysOfRun()).some((name) => name.includes(token))).toBe(false);
  });

  it('sets the window as the counter TTL on the first failure only', async () => {
    const s = store();
    const key = uniqueKey();
    await s.recordFailure(key, policy);
    await admin.expire(`${prefix}throttle:fail:${key}`, 30);
    await s.recordFailure(key, policy);
    const ttl = await admin.ttl(`${prefix}throttle:fail:${key}`);
    expect(ttl).toBeGreaterThan(25);
    expect(ttl).toBeLessThanOrEqual(30);
  });

  it('starts a new count once the window has expired', async () => {
    const s = store();
    const key = uniqueKey();
    await s.recordFailure(key, policy);
    await s.recordFailure(key, policy);
    await admin.pexpire(`${prefix}throttle:fail:${key}`, 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await s.recordFailure(key, policy)).toBe(0);
    expect(await s.recordFailure(key, policy)).toBe(0);
  });

  it('takes the retry seconds from the block TTL, rounded up', async () => {
    const s = store();
    const key = uniqueKey();
    for (let i = 0; i < 3; i++) await s.recordFailure(key, policy);
    const blockKey = `${prefix}throttle:block:${key}`;
    expect(await admin.ttl(blockKey)).toBeGreaterThan(895);
    await admin.pexpire(blockKey, 1_500);
    expect(await s.blockedFor(key)).toBe(2);
    await admin.pexpire(blockKey, 400);
    expect(await s.blockedFor(key)).toBe(1);
    await admin.del(blockKey);
    expect(await s.blockedFor(key)).toBe(0);
  });

  it('deletes both keys on reset', async () => {
    const s = store();
    const key = uniqueKey();
    for (let i = 0; i < 4; i++) await s.recordFailure(key, policy);
    expect(
      await admin.exists(`${prefix}throttle:fail:${key}`, `${prefix}throttle:block:${key}`),
    ).toBe(2);
    await s.reset(key);
    expect(
      await admin.exists(`${prefix}throttle:fail:${key}`, `${prefix}throttle:block:${key}`),
    ).toBe(0);
  });

  it('answers a block it read from Redis from memory until KNOWN_BLOCK_MS have passed', async () => {
    let now = 1_000_000;
    const s = store(testConfig(), { now: () => now });
    const key = uniqueKey();
    for (let i = 0; i < 3; i++) await s.recordFailure(key, policy);
    const first = await s.status(key);
    expect(first).toEqual({ blockedFor: expect.any(Number), hasFailures: true });
    expect(first.blockedFor).toBeGreaterThan(890);
    // Lifted behind the store's back: the status keeps the block it read, for a second at most,
    // counting down from the block's end as Redis gave it.
    await admin.del(`${prefix}throttle:block:${key}`);
    now += KNOWN_BLOCK_MS - 1;
    const remembered = await s.status(key);
    expect(remembered.hasFailures).toBe(true);
    expect(remembered.blockedFor).toBeGreaterThanOrEqual(first.blockedFor - 1);
    expect(remembered.blockedFor).toBeLessThanOrEqual(first.blockedFor);
    // blockedFor always asks Redis.
    expect(await s.blockedFor(key)).toBe(0);
    now += 1;
    expect(await s.status(key)).toEqual({ blockedFor: 0, hasFailures: false });
  });

  it('knows a block without a round trip for KNOWN_BLOCK_MS after Redis said so', async () => {
    let now = 1_000_000;
    const s = store(testConfig(), { now: () => now });
    const key = uniqueKey();
    for (let i = 0; i < 3; i++) await s.recordFailure(key, policy);
    // Failures alone teach it nothing: only a status read from Redis does.
    expect(s.knownBlock!(key)).toBe(0);
    const { blockedFor } = await s.status(key);
    await admin.del(`${prefix}throttle:block:${key}`);
    now += KNOWN_BLOCK_MS - 1;
    expect(s.knownBlock!(key)).toBeGreaterThanOrEqual(blockedFor - 1);
    now += 1;
    expect(s.knownBlock!(key)).toBe(0);
  });

  it('forgets a block it remembered when the key is reset', async () => {
    const s = store();
    const key = uniqueKey();
    for (let i = 0; i < 3; i++) await s.recordFailure(key, policy);
    expect((await s.status(key)).blockedFor).toBeGreaterThan(890);
    await s.reset(key);
    expect(await s.status(key)).toEqual({ blockedFor: 0, hasFailures: false });
  });

  it('counts failures from two stores on one Redis as one count', async () => {
    const [a, b] = [store(), store()];
    const key = uniqueKey();
    expect(await a.recordFailure(key, policy)).toBe(0);
    expect(await b.recordFailure(key, policy)).toBe(0);
    expect((await a.status(key)).blockedFor).toBe(0);
    expect(await b.recordFailure(key, policy)).toBe(900);
    expect((await a.status(key)).blockedFor).toBeGreaterThan(890);
    expect((await b.status(key)).blockedFor).toBeGreaterThan(890);
  });

  it('fails closed within a second when nothing listens on the Redis port', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const s = store(testConfig({ host: '127.0.0.1', port: await closedPort() }));
      await expectUnavailable(s, 1_000);
      await new Promise((resolve) => setTimeout(resolve, 300)); // let reconnect attempts fail too
      await expectUnavailable(s, 1_000);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('fails closed when Redis accepts connections but never answers', async () => {
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = silent.address() as net.AddressInfo;
      const s = store(testConfig({ host: '127.0.0.1', port, connectTimeoutMillis: 300 }));
      await expectUnavailable(s, 2_000);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('logs an outage once, without the password, and recovers when Redis is back', async () => {
    const target = testConfig();
    const proxy = createProxy(target.host, target.port);
    const port = await proxy.start(0);
    const lines: string[] = [];
    const log = createLogger({ level: 'debug', format: 'json', write: (line) => lines.push(line) });
    const s = store(testConfig({ host: '127.0.0.1', port }), { log });
    const key = uniqueKey();
    await s.recordFailure(key, policy);

    await proxy.stop();
    await expectUnavailable(s, 1_000);
    await new Promise((resolve) => setTimeout(resolve, 500)); // several failed reconnections
    expect(lines.filter((line) => line.includes('"level":"error"'))).toHaveLength(1);

    await proxy.start(port);
    await waitUntil(
      async () =>
        s.ping().then(
          () => true,
          () => false,
        ),
      5_000,
    );
    expect(await s.recordFailure(key, policy)).toBe(0);
    expect(await s.recordFailure(key, policy)).toBe(900);
    expect(lines.some((line) => line.includes('reachable again'))).toBe(true);
    await proxy.stop();
  });

  it('never writes the password into the log', async () => {
    const lines: string[] = [];
    const log = createLogger({ level: 'debug', format: 'json', write: (line) => lines.push(line) });
    const s = store(
      testConfig({ host: '127.0.0.1', port: await closedPort(), password: 'pw-8f3a-never-logged' }),
      { log },
    );
    await expect(s.ping()).rejects.toBeInstanceOf(ThrottleUnavailableError);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.join('\n')).not.toContain('pw-8f3a-never-logged');
  });
});

/** A TCP relay to Redis that can be stopped and restarted on the same port, to stage an outage. */
function createProxy(host: string, port: number) {
  let server: net.Server | undefined;
  const sockets = new Set<net.Socket>();
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  return {
    async start(listenPort: number): Promise<number> {
      server = net.createServer((client) => {
        const upstream = net.connect(port, host);
        track(client);
        track(upstream);
        client.pipe(upstream).pipe(client);
      });
      await new Promise<void>((resolve) => server!.listen(listenPort, '127.0.0.1', resolve));
      return (server.address() as net.AddressInfo).port;
    },
    async stop(): Promise<void> {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server!.close(() => resolve()));
    },
  };
}

async function waitUntil(check: () => Promise<boolean>, timeoutMillis: number): Promise<void> {
  const deadline = Date.now() + timeoutMillis;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Condition not met within ${timeoutMillis} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
