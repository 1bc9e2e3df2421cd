/**
 * Notice fan-out over a real Redis (HUB_TEST_REDIS_URL): two hub instances on one PostgreSQL
 * database, where a comment made through hub A reaches an SSE client of hub B; the channel lives
 * under the run's key prefix; and with Redis unreachable, notices are still stored while the stream
 * answers 503. Skipped only when the variables are unset outside CI; under CI=true they must be set.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDriver } from '../../kernel/storage/create-driver.ts';
import type { StorageDriver } from '../../kernel/storage/contract.ts';
import { createMemoryThrottleStore } from '../../kernel/throttle/memory.ts';
import { noticeChannel } from '../../plugins/notices/fanout.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/databases.ts';
import { EMBEDDED_DRIVER } from '../helpers/drivers.ts';
import { startTestHub, uniqueName, useTestHub, type TestHub } from '../helpers/hub.ts';
import { closedPort } from '../helpers/net.ts';
import {
  PG_URL_VAR,
  redisSection as sharedRedisSection,
  REDIS_URL_VAR,
  requireService,
} from '../helpers/services.ts';
import { eventually } from '../helpers/async.ts';
import { sseReader } from '../helpers/sse.ts';
import { pluginsWith } from './setup.ts';

const redisUrl = requireService(REDIS_URL_VAR);
const pgUrl = requireService(PG_URL_VAR);
const prefix = `hubtest:${randomUUID().slice(0, 8)}:`;

/** The `redis` section for a test hub, under this run's key prefix. */
const redisSection = (overrides: Record<string, unknown> = {}) =>
  sharedRedisSection({ keyPrefix: prefix, connectTimeoutMillis: 500, ...overrides });

const openStream = (t: TestHub, token: string) =>
  t.hub.app.request('/notices/stream', { headers: { authorization: `Bearer ${token}` } });

/** Opens a stream once the hub's subscriber is ready (503 until then). */
async function readyStream(t: TestHub, token: string) {
  let res = await openStream(t, token);
  const deadline = Date.now() + 5000;
  while (res.status === 503 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    res = await openStream(t, token);
  }
  expect(res.status).toBe(200);
  return sseReader(res);
}

describe.runIf(redisUrl && pgUrl)('notice fan-out across two hubs over Redis (postgres)', () => {
  let database: TestDatabase;
  const drivers: StorageDriver[] = [];
  let a: TestHub;
  let b: TestHub;
  let admin: Redis;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    for (let i = 0; i < 2; i++) drivers.push(await createDriver(database.config));
    const plugins = await pluginsWith({});
    a = await startTestHub({ driver: drivers[0]!, plugins, config: { redis: redisSection() } });
    b = await startTestHub({
      driver: drivers[1]!,
      plugins,
      config: { redis: redisSection() },
      migrate: false,
    });
    const { host, port } = redisSection();
    admin = new Redis({ host, port, lazyConnect: true });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.quit();
    await b?.close();
    await a?.close();
    for (const driver of drivers) await driver.close();
    await database?.drop();
  });

  it('delivers a notice created through hub A to a stream on hub B', async () => {
    const owner = await a.createUser({ collectionAccess: ['*'] });
    const collection = (
      await a.request('POST', '/collections', {
        token: owner.token,
        body: { name: uniqueName('c') },
      })
    ).body;
    const readerName = uniqueName('reader');
    const reader = await a.createUser({ name: readerName, collectionAccess: [collection.id] });
    const stream = await readyStream(b, reader.token);
    await stream.until(': connected');
    await readyStream(a, owner.token).then((s) => s.cancel()); // A's subscriber is up too

    const channelMessages: string[] = [];
    const listener = admin.duplicate();
    await listener.subscribe(noticeChannel({ keyPrefix: prefix }));
    listener.on('message', (_channel, message) => channelMessages.push(message));

    const res = await a.request('POST', `/collections/${collection.id}/discussions`, {
      token: owner.token,
      body: { body: `hi @${readerName}` },
    });
    expect(res.status, res.text).toBe(200);
    await stream.until('notice.created');
    const [notice] = (await b.request('GET', '/notices', { token: reader.token })).body.notices;
    expect(stream.frames()).toEqual([
      { v: 1, type: 'notice.created', noticeId: notice.id, unreadCount: 1 },
    ]);
    expect(notice).toMatchObject({
      eventType: 'discussion.mention',
      discussionCommentId: res.body.id,
    });

    await eventually(() => channelMessages.length === 1);
    expect(JSON.parse(channelMessages[0]!)).toEqual({
      v: 1,
      type: 'notice.created',
      tenantId: '__default__',
      recipientUserId: reader.id,
      noticeId: notice.id,
      unreadCount: 1,
    });
    await stream.cancel();
    await listener.quit();
  });
});

describe.runIf(redisUrl)('notices while Redis is unreachable', () => {
  // Authentication keeps working on an in-memory throttle: only the notice fan-out loses Redis.
  const t = useTestHub(EMBEDDED_DRIVER, async () => ({
    plugins: await pluginsWith({}),
    config: { redis: redisSection({ host: '127.0.0.1', port: await closedPort() }) },
    throttle: createMemoryThrottleStore(),
  }));

  it('still stores notices while the stream answers 503', async () => {
    const owner = await t.createUser({ collectionAccess: ['*'] });
    const readerName = uniqueName('reader');
    const reader = await t.createUser({ name: readerName, collectionAccess: ['*'] });
    const stream = await openStream(t, reader.token);
    expect(stream.status).toBe(503);
    expect(await stream.json()).toEqual({
      error: 'Service Unavailable',
      code: 'service_unavailable',
    });

    const collection = (
      await t.request('POST', '/collections', {
        token: owner.token,
        body: { name: uniqueName('c') },
      })
    ).body;
    const res = await t.request('POST', `/collections/${collection.id}/discussions`, {
      token: owner.token,
      body: { body: `@${readerName} ping` },
    });
    expect(res.status, res.text).toBe(200);
    expect((await t.request('GET', '/notices/unread-count', { token: reader.token })).body).toEqual(
      { count: 1 },
    );
  });
});
