/**
 * No stale read across processes, under pressure: two real hub processes on one database, and a
 * client that writes through one and at once reads through the other, alternating, hundreds of
 * times (a renamed request in its collection's list, a new collection in the list, a
 * revoked token, a user's changed access list). Run idle, while CPU-bound processes saturate the
 * machine, and (PostgreSQL) while hub B's LISTEN connection is frozen silently by a proxy.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callServer, freePort, type ServerAnswer } from '../helpers/net.ts';
import { createProject, quietLogging, type RunningServer } from '../helpers/cli.ts';
import { startHubPair, type HubPair } from '../helpers/hub-pair.ts';
import { createTestDatabase, driverAvailable, type TestDatabase } from '../helpers/databases.ts';
import { uniqueName } from '../helpers/hub.ts';
import { startListenerProxy, type ListenerProxy } from '../helpers/listener-proxy.ts';
import { redisSection, REDIS_URL_VAR, requireService } from '../helpers/services.ts';

type Kind = 'postgres' | 'mysql' | 'firestore';
interface Stale {
  rename: number;
  create: number;
  revoke: number;
  access: number;
}

/**
 * Iterations idle (half as many with every core busy), each a rename read back on the other hub,
 * every fifth an access change, every tenth a new collection and a revoked token: 700 write-then-
 * read pairs idle on the SQL servers, half as many loaded. The Firestore emulator is far slower
 * than a SQL server. STALE_N raises the count for a longer run by hand.
 */
const ITERATIONS: Record<Kind, number> = {
  postgres: Number(process.env.STALE_N ?? 500),
  mysql: Number(process.env.STALE_N ?? 500),
  firestore: Math.round(Number(process.env.STALE_N ?? 500) * 0.4),
};

function alternatingHubs(kind: Kind) {
  let database: TestDatabase;
  let proxy: ListenerProxy | undefined;
  let pair: HubPair | undefined;
  let a: RunningServer;
  let b: RunningServer;
  let admin: string;
  let userId: string;
  let userSecret: string;
  let collectionId: string;
  let requestId: string;

  const ok = (answer: ServerAnswer) => {
    if (answer.status < 200 || answer.status > 299)
      throw new Error(`${answer.status}: ${JSON.stringify(answer.body)}`);
    return answer.body;
  };

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    const extra = kind === 'postgres' ? { redis: redisSection() } : {};
    const dbA = database.config as Record<string, unknown>;
    let dbB = dbA;
    if (kind === 'postgres') {
      proxy = await startListenerProxy(String(dbA.host), Number(dbA.port));
      dbB = { ...dbA, host: '127.0.0.1', port: proxy.port };
    }
    const configOf = async (db: Record<string, unknown>) => ({
      server: { port: await freePort(), trustProxy: true },
      db,
      ...extra,
      ...quietLogging,
    });
    pair = await startHubPair(
      [await createProject(await configOf(dbA)), await createProject(await configOf(dbB))],
      { migrate: true },
    );
    ({ a, b, admin } = pair);
    collectionId = ok(await callServer(a, 'POST', '/collections', admin, { name: 'shared' })).id;
    requestId = ok(
      await callServer(a, 'POST', `/collections/${collectionId}/requests`, admin, {
        name: 'first',
        method: 'GET',
        url: 'https://example.test/',
      }),
    ).id;
    const user = ok(
      await callServer(a, 'POST', '/admin/users', admin, { name: uniqueName('u'), role: 'user' }),
    );
    userId = user.user.id;
    userSecret = user.secret ?? user.token?.secret;
  }, 120_000);
  afterAll(async () => {
    await pair?.stop();
    await proxy?.close();
    await database?.drop();
  });

  /** Writes on one hub and reads on the other, alternating; counts answers that miss the write. */
  async function alternate(iterations: number): Promise<Stale> {
    const stale: Stale = { rename: 0, create: 0, revoke: 0, access: 0 };
    const listPath = `/collections/${collectionId}/requests`;
    for (let i = 0; i < iterations; i++) {
      const [writer, reader] = i % 2 === 0 ? [a, b] : [b, a];
      const name = `name-${i}`;
      ok(await callServer(writer, 'PUT', `/requests/${requestId}`, admin, { collectionId, name }));
      if (ok(await callServer(reader, 'GET', listPath, admin)).requests[0]?.name !== name)
        stale.rename++;

      if (i % 10 === 0) {
        const created = uniqueName('c');
        ok(await callServer(writer, 'POST', '/collections', admin, { name: created }));
        const listed = ok(await callServer(reader, 'GET', '/collections', admin)).collections;
        if (!listed.some((c: { name: string }) => c.name === created)) stale.create++;
      }
      if (i % 10 === 5) {
        const issued = ok(
          await callServer(writer, 'POST', `/admin/users/${userId}/tokens`, admin, {
            name: `t${i}`,
          }),
        );
        ok(await callServer(reader, 'GET', '/auth/session', issued.secret));
        ok(await callServer(writer, 'DELETE', `/admin/tokens/${issued.token.id}`, admin));
        // Each refusal counts against the client's address in the failed-authentication
        // throttle: every check comes from an address of its own, so it reaches the token check.
        const after = await fetch(`${reader.url}/auth/session`, {
          headers: {
            authorization: `Bearer ${issued.secret}`,
            'x-forwarded-for': `10.0.${(i >> 8) & 255}.${i & 255}`,
          },
        });
        if (after.status !== 401) stale.revoke++;
      }
      if (i % 5 === 0) {
        const granted = (i / 5) % 2 === 0;
        const access = granted ? [collectionId] : [];
        ok(
          await callServer(writer, 'PUT', `/admin/users/${userId}`, admin, {
            collectionAccess: access,
          }),
        );
        const seen = ok(await callServer(reader, 'GET', '/collections', userSecret)).collections;
        if (seen.length !== access.length) stale.access++;
      }
    }
    return stale;
  }

  const report = (condition: string, stale: Stale) =>
    console.log(`stale reads on ${kind}, ${condition}: ${JSON.stringify(stale)}`);
  const none: Stale = { rename: 0, create: 0, revoke: 0, access: 0 };

  it('answers every read after a write on the other hub with the write, idle', async () => {
    const stale = await alternate(ITERATIONS[kind]);
    report('idle', stale);
    expect(stale).toEqual(none);
  }, 600_000);

  it('answers every read after a write on the other hub with the write, with every core busy', async () => {
    const hogs: ChildProcess[] = [];
    for (let i = 0; i < os.availableParallelism(); i++)
      hogs.push(spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
    try {
      const stale = await alternate(ITERATIONS[kind] / 2);
      report('loaded', stale);
      expect(stale).toEqual(none);
    } finally {
      for (const hog of hogs) hog.kill('SIGKILL');
    }
  }, 600_000);

  // Only PostgreSQL has a listening connection to cut.
  if (kind === 'postgres')
    it("answers every read after a write on the other hub with the write, while hub B's LISTEN connection is frozen", async () => {
      // Warm both hubs' listeners and caches first, so the freeze cuts a proven listener.
      await alternate(20);
      expect(proxy!.freezeListeners()).toBe(1);
      const started = Date.now();
      let stale = { ...none };
      // Long enough for the probe to notice and a new listener to take over (about 7 s).
      while (Date.now() - started < 12_000) {
        const round = await alternate(100);
        for (const key of Object.keys(stale) as (keyof Stale)[]) stale[key] += round[key];
      }
      report('listener frozen', stale);
      expect(stale).toEqual(none);
    }, 600_000);
}

for (const kind of ['postgres', 'mysql', 'firestore'] as const)
  describe.runIf(driverAvailable(kind) && (kind !== 'postgres' || requireService(REDIS_URL_VAR)))(
    `no stale read across two hub processes (${kind})`,
    () => alternatingHubs(kind),
  );
