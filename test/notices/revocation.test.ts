/**
 * Open notice streams end when their token stops working: deleted through the admin API, its user
 * deleted, or revoked by another hub on the same database (which this hub hears of only through
 * the database), or by the real `workspace-hub` CLI beside a real hub process. Each stream must end
 * with `: unauthorized` within a second (the goal the hub sets itself; measured and printed) and
 * receive nothing afterwards, while a stream of another token of the same user stays open. Runs on
 * every driver, MySQL and Firestore included (no change feed there: the tokens are read again on
 * every check).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT_ID } from '../../kernel/identity/tenants.ts';
import { allDrivers } from '../helpers/drivers.ts';
import { eventually } from '../helpers/async.ts';
import { quietLogging, useCliProject, useServer } from '../helpers/cli.ts';
import { driverAvailable } from '../helpers/databases.ts';
import { callServer } from '../helpers/net.ts';
import { uniqueName, useTestHub, type TestHub } from '../helpers/hub.ts';
import { sseReader } from '../helpers/sse.ts';
import { pluginsWith, useNoticesHub } from './setup.ts';

/** The goal: a revoked token's streams end within this long. */
const GOAL_MS = 1000;

const openStream = (t: TestHub, token: string) =>
  t.hub.app.request('/notices/stream', {
    headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
  });

type Sse = ReturnType<typeof sseReader>;

/** Waits for `: unauthorized` and the end of the body; returns the ms since `since`. */
async function endOf(sse: Sse, since: number): Promise<number> {
  await sse.until(': unauthorized\n', 5000);
  await eventually(
    async () => {
      await sse.until(/$^/, 50).catch(() => undefined);
      return sse.done;
    },
    3000,
    'the stream to end',
  );
  return Date.now() - since;
}

describe.each(allDrivers())('notice streams of revoked tokens (%s)', (kind) => {
  const f = useNoticesHub(kind);
  // A second hub on the same database: what it revokes, this hub learns only from the database.
  const other = useTestHub(f.t, async () => ({ plugins: await pluginsWith({}) }));

  /** A reader with two tokens (ids and secrets), an open stream on each, and a way to notify them. */
  async function scene() {
    const owner = await f.user({ collectionAccess: ['*'] });
    const collection = await f.collection(owner.token);
    const reader = await f.user({ collectionAccess: [collection.id] });
    const issue = async () =>
      (await f.create(`/admin/users/${reader.id}/tokens`, { name: 'device' })) as {
        token: { id: string };
        secret: string;
      };
    const [revoked, kept] = [await issue(), await issue()];
    const [gone, stays] = await Promise.all(
      [revoked, kept].map(async ({ secret }) => sseReader(await openStream(f.t, secret))),
    );
    await gone!.until(': connected');
    await stays!.until(': connected');
    const mention = () =>
      f.publish({
        actorUserId: owner.id,
        entityType: 'collection',
        entityId: collection.id,
        mentionedUserIds: [reader.id],
      });
    return { reader, revoked, gone: gone!, stays: stays!, mention };
  }

  /** After the revoked stream ended: a new notice reaches the kept stream only. */
  async function nothingAfter(s: Awaited<ReturnType<typeof scene>>) {
    await s.mention();
    await s.stays.until('notice.created');
    expect(s.gone.frames()).toEqual([]);
    expect(s.gone.text).toMatch(/: unauthorized\n\n$/);
    await s.stays.cancel();
  }

  it('ends the stream of a token deleted through the admin API within a second, and only that one', async () => {
    const s = await scene();
    const started = Date.now();
    const res = await f.t.request('DELETE', `/admin/tokens/${s.revoked.token.id}`);
    expect(res.status, res.text).toBe(204);
    const ms = await endOf(s.gone, started);
    console.log(`[${kind}] stream ended ${ms} ms after DELETE /admin/tokens/:id answered`);
    expect(ms).toBeLessThan(GOAL_MS);
    await nothingAfter(s);
    // Its reconnect meets the 401.
    expect((await openStream(f.t, s.revoked.secret)).status).toBe(401);
  });

  it('ends the stream of a token another hub on the same database revoked, within a second', async () => {
    const s = await scene();
    const store = other.hub.driver().forTenant(DEFAULT_TENANT_ID);
    // Through the other hub's own identity service: only the database carries the news here.
    expect(await other.hub.identity.tokens.revoke(store, s.revoked.token.id)).not.toBeNull();
    const started = Date.now();
    const ms = await endOf(s.gone, started);
    console.log(`[${kind}] stream ended ${ms} ms after another hub revoked its token`);
    expect(ms).toBeLessThan(GOAL_MS);
    await nothingAfter(s);
  });

  it('ends every stream of a deleted user within a second', async () => {
    const s = await scene();
    const started = Date.now();
    const res = await other.request('DELETE', `/admin/users/${s.reader.id}`);
    expect(res.status, res.text).toBe(204);
    const ms = Math.max(await endOf(s.gone, started), await endOf(s.stays, started));
    console.log(`[${kind}] both streams ended ${ms} ms after the user's deletion answered`);
    expect(ms).toBeLessThan(GOAL_MS);
    await s.mention();
    expect(s.gone.frames()).toEqual([]);
    expect(s.stays.frames()).toEqual([]);
  });
});

describe.each((['sqlite', 'postgres', 'mysql'] as const).filter(driverAvailable))(
  'notice streams of a hub process, revoked by the CLI (%s)',
  (kind) => {
    // On SQLite the project's own ./data/hub.db, which the hub and the CLI both open; a server
    // database is migrated by the CLI first.
    const shared = kind === 'sqlite' ? null : kind;
    const project = useCliProject(shared, quietLogging, { migrate: shared !== null });
    const hub = useServer(project, ['--port', '0']);
    let admin: string;
    beforeAll(() => {
      admin = /hbk_[A-Za-z0-9_-]{43}/.exec(hub.stdout())![0];
    });

    const call = (method: string, path: string, secret: string, body?: unknown) =>
      callServer(hub.url, method, path, secret, body);
    const stream = async (secret: string) => {
      const sse = sseReader(
        await fetch(`${hub.url}/notices/stream`, {
          headers: { authorization: `Bearer ${secret}` },
        }),
      );
      await sse.until(': connected');
      return sse;
    };
    /** A user with two tokens, and a stream open on each. */
    async function reader() {
      const name = uniqueName('reader');
      const created = await call('POST', '/admin/users', admin, {
        name,
        role: 'user',
        collectionAccess: ['*'],
      });
      expect(created.status).toBe(201);
      const second = await call('POST', `/admin/users/${created.body.user.id}/tokens`, admin, {
        name: 'laptop',
      });
      expect(second.status).toBe(201);
      return {
        id: created.body.user.id as string,
        name,
        tokenId: created.body.token.id as string,
        first: await stream(created.body.secret),
        second: await stream(second.body.secret),
      };
    }

    it('ends the stream of a token the CLI revoked within a second, and sends it nothing after', async () => {
      const r = await reader();
      const revoked = await project.run('user', 'token', 'revoke', r.tokenId);
      expect(revoked.code, revoked.stderr).toBe(0);
      const ms = await endOf(r.first, Date.now());
      console.log(`[${kind}] hub process ended the stream ${ms} ms after the CLI revoke exited`);
      expect(ms).toBeLessThan(GOAL_MS);

      // A notice for the user now reaches only the stream of the token still valid.
      const collection = await call('POST', '/collections', admin, { name: uniqueName('c') });
      const comment = await call('POST', `/collections/${collection.body.id}/discussions`, admin, {
        body: `@${r.name} look`,
      });
      expect(comment.status).toBe(200);
      await r.second.until('notice.created');
      expect(r.first.frames()).toEqual([]);
      expect(r.first.text).toMatch(/: unauthorized\n\n$/);
      await r.second.cancel();
    });

    it('ends every stream of a user the CLI deleted within a second', async () => {
      const r = await reader();
      const deleted = await project.run('user', 'delete', r.id);
      expect(deleted.code, deleted.stderr).toBe(0);
      const since = Date.now();
      const ms = Math.max(await endOf(r.first, since), await endOf(r.second, since));
      console.log(`[${kind}] hub process ended both streams ${ms} ms after the CLI delete exited`);
      expect(ms).toBeLessThan(GOAL_MS);
    });
  },
);
