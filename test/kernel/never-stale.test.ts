/**
 * The read cache is never stale: two real hub processes on one database (PostgreSQL with Redis,
 * and the embedded SQLite file), with the CLI changing the same database beside them. Every
 * answer the hubs keep in memory (a token and its user, the collection list, a collection's
 * requests) is warmed first on both, then changed through one hub, the other hub or the CLI, and
 * the very next request to each hub must show the change.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/net.ts';
import { createProject, quietLogging, type Project, type RunningServer } from '../helpers/cli.ts';
import { startHubPair, type HubPair } from '../helpers/hub-pair.ts';
import { createTestDatabase, driverAvailable, type TestDatabase } from '../helpers/databases.ts';
import { uniqueName } from '../helpers/hub.ts';
import { callServer, type ServerAnswer } from '../helpers/net.ts';
import { redisSection, REDIS_URL_VAR, requireService } from '../helpers/services.ts';

function twoHubs(kind: 'postgres' | 'sqlite') {
  let pgDb: TestDatabase | undefined;
  let projectA: Project;
  let projectB: Project;
  let a: RunningServer;
  let b: RunningServer;
  let admin: string;
  let pair: HubPair | undefined;

  const names = (result: ServerAnswer) =>
    (result.body.collections as { name: string }[]).map((c) => c.name).sort();

  beforeAll(async () => {
    let db: Record<string, unknown>;
    let redis: Record<string, unknown> = {};
    const [portA, portB] = [await freePort(), await freePort()];
    if (kind === 'postgres') {
      pgDb = await createTestDatabase('postgres');
      db = pgDb.config;
      redis = { redis: redisSection() };
    } else {
      // Hub B and the CLI open hub A's database file by its absolute path.
      projectA = await createProject();
      db = { driver: 'sqlite', path: `${projectA.dir}/data/hub.db` };
    }
    projectA ??= await createProject();
    await projectA.writeConfig('server.yaml', {
      server: { port: portA },
      db,
      ...redis,
      ...quietLogging,
    });
    projectB = await createProject({ server: { port: portB }, db, ...redis, ...quietLogging });
    pair = await startHubPair([projectA, projectB], { migrate: kind === 'postgres' });
    ({ a, b, admin } = pair);
  });
  afterAll(async () => {
    await pair?.stop();
    await pgDb?.drop();
  });

  it('shows a collection created through one hub on the other hub at once, and an access list changed by the CLI', async () => {
    const user = await callServer(a, 'POST', '/admin/users', admin, {
      name: uniqueName('u'),
      role: 'user',
      collectionAccess: [],
    });
    expect(user.status).toBe(201);
    const secret = user.body.secret ?? user.body.token?.secret;
    for (const hub of [a, b]) {
      expect((await callServer(hub, 'GET', '/collections', secret)).body).toEqual({
        collections: [],
      });
      expect((await callServer(hub, 'GET', '/collections', admin)).status).toBe(200);
    }
    const created = await callServer(a, 'POST', '/collections', admin, { name: 'made-on-a' });
    expect(names(await callServer(b, 'GET', '/collections', admin))).toContain('made-on-a');

    const update = await projectA.run(
      'user',
      'update',
      user.body.user.id,
      '--collection-access',
      created.body.id,
      '--json',
    );
    expect(update.code, update.stderr).toBe(0);
    for (const hub of [a, b])
      expect(names(await callServer(hub, 'GET', '/collections', secret))).toEqual(['made-on-a']);

    // Taken away again through hub B's admin API: hub A's next answer follows.
    expect(
      (
        await callServer(b, 'PUT', `/admin/users/${user.body.user.id}`, admin, {
          collectionAccess: [],
        })
      ).status,
    ).toBe(200);
    expect((await callServer(a, 'GET', '/collections', secret)).body).toEqual({ collections: [] });
  });

  it('lists a request saved through one hub on the other at once, and a renamed one', async () => {
    const collection = (
      await callServer(a, 'POST', '/collections', admin, { name: uniqueName('c') })
    ).body;
    const path = `/collections/${collection.id}/requests`;
    for (const hub of [a, b])
      expect((await callServer(hub, 'GET', path, admin)).body).toEqual({ requests: [] });
    const saved = (
      await callServer(b, 'POST', path, admin, {
        name: 'first',
        method: 'GET',
        url: 'https://example.test/',
      })
    ).body;
    expect(
      (await callServer(a, 'GET', path, admin)).body.requests.map((r: { id: string }) => r.id),
    ).toEqual([saved.id]);
    const put = await callServer(a, 'PUT', `/requests/${saved.id}`, admin, {
      collectionId: collection.id,
      name: 'renamed',
    });
    expect(put.status).toBe(200);
    expect(
      (await callServer(b, 'GET', path, admin)).body.requests.map((r: { name: string }) => r.name),
    ).toEqual(['renamed']);
  });

  it('refuses a token revoked by the CLI, and a user deleted by the CLI, on the next request to either hub', async () => {
    const user = await callServer(b, 'POST', '/admin/users', admin, {
      name: uniqueName('v'),
      role: 'user',
    });
    const secret = user.body.secret ?? user.body.token?.secret;
    for (const hub of [a, b])
      expect((await callServer(hub, 'GET', '/auth/session', secret)).status).toBe(200);
    const revoked = await projectB.run('user', 'token', 'revoke', user.body.token.id, '--json');
    expect(revoked.code, revoked.stderr).toBe(0);
    for (const hub of [a, b])
      expect((await callServer(hub, 'GET', '/auth/session', secret)).status).toBe(401);

    const second = await callServer(a, 'POST', `/admin/users/${user.body.user.id}/tokens`, admin, {
      name: 'second',
    });
    expect(second.status).toBe(201);
    const next = second.body.secret;
    for (const hub of [a, b])
      expect((await callServer(hub, 'GET', '/auth/session', next)).status).toBe(200);
    const deleted = await projectA.run('user', 'delete', user.body.user.id, '--json');
    expect(deleted.code, deleted.stderr).toBe(0);
    for (const hub of [a, b])
      expect((await callServer(hub, 'GET', '/auth/session', next)).status).toBe(401);
  });

  it("shows a user's new name and role and the hub's new initials in the very next session on either hub", async () => {
    const user = await callServer(a, 'POST', '/admin/users', admin, {
      name: uniqueName('s'),
      role: 'user',
    });
    const secret = user.body.secret ?? user.body.token?.secret;
    const session = async (hub: RunningServer) =>
      (await callServer(hub, 'GET', '/auth/session', secret)).body;
    for (const hub of [a, b]) expect((await session(hub)).capabilities.managementApi).toBe(false);
    const name = uniqueName('renamed');
    const put = await callServer(b, 'PUT', `/admin/users/${user.body.user.id}`, admin, {
      name,
      role: 'admin',
    });
    expect(put.status).toBe(200);
    for (const hub of [a, b])
      expect(await session(hub)).toMatchObject({
        user: { name, role: 'admin' },
        capabilities: { managementApi: true },
      });
    for (const [writer, initials] of [
      [a, 'QX'],
      [b, 'ZW'],
    ] as const) {
      const avatar = await callServer(writer, 'PUT', '/admin/hub/avatar', admin, { initials });
      expect(avatar.status).toBe(200);
      for (const hub of [a, b]) expect((await session(hub)).hub.initials).toBe(initials);
    }
  });

  it('answers 304 to a client that presents the ETag of an unchanged list, and 200 with the new list after a change', async () => {
    const first = await callServer(a, 'GET', '/collections', admin);
    const firstEtag = first.headers.get('etag');
    expect(firstEtag).toMatch(/^"[\w-]+"$/);
    const again = await fetch(`${a.url}/collections`, {
      headers: { authorization: `Bearer ${admin}`, 'if-none-match': firstEtag! },
    });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    // Equal bytes give equal ETags in every process.
    expect((await callServer(b, 'GET', '/collections', admin)).headers.get('etag')).toBe(firstEtag);
    await callServer(b, 'POST', '/collections', admin, { name: uniqueName('etag') });
    const changed = await fetch(`${a.url}/collections`, {
      headers: { authorization: `Bearer ${admin}`, 'if-none-match': firstEtag! },
    });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(firstEtag);
  });
}

describe('the read cache across two hub processes and the CLI (sqlite)', () => twoHubs('sqlite'));
describe.runIf(driverAvailable('postgres') && requireService(REDIS_URL_VAR))(
  'the read cache across two hub processes and the CLI (postgres, redis)',
  () => twoHubs('postgres'),
);
