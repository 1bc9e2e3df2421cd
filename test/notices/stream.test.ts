/**
 * The SSE stream through `app.request()`: headers, the comment lines, one frame per notice for the
 * recipient only, release of the registry entry when the client goes away, and shutdown ending
 * every open stream at once.
 */
import { describe, expect, it } from 'vitest';
import { serveNode } from '../../kernel/runtime/node.ts';
import { EMBEDDED_DRIVER, httpDrivers } from '../helpers/drivers.ts';
import { useTestHub, type TestHub } from '../helpers/hub.ts';
import { createStreamRegistry } from '../../plugins/notices/stream.ts';
import { eventually } from '../helpers/async.ts';
import { sseReader } from '../helpers/sse.ts';
import { pluginsWith, useNoticesHub } from './setup.ts';

const openStream = (t: TestHub, token: string) =>
  t.hub.app.request('/notices/stream', {
    headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
  });

describe.each(httpDrivers())('notice stream (%s)', (kind) => {
  const f = useNoticesHub(kind);

  async function scene() {
    const owner = await f.user({ collectionAccess: ['*'] });
    const collection = await f.collection(owner.token);
    const reader = await f.user({ collectionAccess: [collection.id] });
    const mention = (userId = reader.id) =>
      f.publish({
        actorUserId: owner.id,
        entityType: 'collection',
        entityId: collection.id,
        mentionedUserIds: [userId],
      });
    return { owner, collection, reader, mention };
  }

  it('answers with SSE headers, a connected comment, then heartbeats', async () => {
    const { reader } = await scene();
    const res = await openStream(f.t, reader.token);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(res.headers.get('x-accel-buffering')).toBe('no');
    const sse = sseReader(res);
    expect(await sse.until(': connected\n')).toMatch(/^: connected\n/);
    await sse.until(/: heartbeat\n[\s\S]*: heartbeat\n/, 2000);
    await sse.cancel();
  });

  it('sends one frame per notice to its recipient, with the unread count, and nothing to others', async () => {
    const { owner, reader, mention } = await scene();
    const mine = sseReader(await openStream(f.t, reader.token));
    const theirs = sseReader(await openStream(f.t, owner.token));
    await mine.until(': connected');
    await theirs.until(': connected');

    await mention();
    await mention();
    await mine.until(/("unreadCount":2)/);
    const ids = (await f.notices(reader.token)).notices.map((n) => n.id).reverse();
    expect(mine.frames()).toEqual([
      { v: 1, type: 'notice.created', noticeId: ids[0], unreadCount: 1 },
      { v: 1, type: 'notice.created', noticeId: ids[1], unreadCount: 2 },
    ]);
    expect(mine.text).toMatch(
      /data: \{"v":1,"type":"notice.created","noticeId":"[^"]+","unreadCount":2\}\n\n/,
    );
    expect(theirs.frames()).toEqual([]);
    await Promise.all([mine.cancel(), theirs.cancel()]);
  });

  it('releases the registration when the client disconnects', async () => {
    const { reader, mention } = await scene();
    const before = f.registry.size();
    const streams = await Promise.all(
      [1, 2, 3].map(async () => sseReader(await openStream(f.t, reader.token))),
    );
    for (const sse of streams) await sse.until(': connected');
    expect(f.registry.size()).toBe(before + 3);
    await streams[0]!.cancel();
    await streams[1]!.cancel();
    await eventually(() => f.registry.size() === before + 1);
    await mention();
    await streams[2]!.until('notice.created');
    await streams[2]!.cancel();
    await eventually(() => f.registry.size() === before);
  });

  it('needs a bearer token', async () => {
    expect((await f.t.hub.app.request('/notices/stream')).status).toBe(401);
  });
});

describe.each(httpDrivers())('notice stream shutdown (%s)', (kind) => {
  const registry = createStreamRegistry();
  const t = useTestHub(kind, async () => ({ plugins: await pluginsWith({ registry }) }));

  it('writes ": shutdown" and ends every stream when the hub closes, without waiting for clients', async () => {
    const user = await t.createUser({});
    const streams = await Promise.all(
      [user.token, t.adminToken].map(async (token) => sseReader(await openStream(t, token))),
    );
    for (const sse of streams) await sse.until(': connected');
    expect(registry.size()).toBe(2);

    const started = Date.now();
    await t.close();
    expect(Date.now() - started).toBeLessThan(2000);
    for (const sse of streams) {
      await sse.until(/: shutdown\n/);
      await eventually(async () => {
        await sse.until(/$^/, 50).catch(() => undefined);
        return sse.done;
      });
    }
    expect(registry.size()).toBe(0);
    expect((await openStream(t, user.token)).status).toBe(503);
  });
});

describe('notice stream over a real socket (@hono/node-server)', () => {
  const registry = createStreamRegistry();
  // A drain deadline longer than the test's own timeout: stop() must not wait for it.
  const config = { server: { shutdownTimeoutMs: 3_600_000 } };
  const t = useTestHub(EMBEDDED_DRIVER, async () => ({
    plugins: await pluginsWith({ registry }),
    config,
  }));

  it('streams frames, releases a dropped client, and ends with ": shutdown" when the server stops', async () => {
    const running = await serveNode(t.hub, { host: '127.0.0.1', port: 0 });
    try {
      const owner = await t.createUser({ collectionAccess: ['*'] });
      const collection = (
        await t.request('POST', '/collections', { token: owner.token, body: { name: 'socket' } })
      ).body;
      const connect = (signal?: AbortSignal) =>
        fetch(`${running.url}/notices/stream`, {
          headers: { authorization: `Bearer ${owner.token}` },
          ...(signal ? { signal } : {}),
        });

      const dropped = new AbortController();
      const first = sseReader(await connect(dropped.signal));
      await first.until(': connected');
      dropped.abort();
      await eventually(() => registry.size() === 0);

      const res = await connect();
      expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      const sse = sseReader(res);
      await sse.until(': connected');
      const folder = await t.request('POST', `/collections/${collection.id}/folders`, {
        token: owner.token,
        body: { name: 'f' },
      });
      // The creator hears about a new thread on their folder.
      const comment = await t.request('POST', `/folders/${folder.body.id}/discussions`, {
        body: { body: 'socket test' },
      });
      expect(comment.status, comment.text).toBe(200);
      await sse.until('"unreadCount":1');

      // Stopping ends open streams first, so the drain finishes instead of waiting out the deadline.
      const stopped = running.stop();
      await sse.until(': shutdown\n');
      await stopped;
    } finally {
      await running.stop();
    }
  });
});
