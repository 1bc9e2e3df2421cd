/**
 * Requests a plugin runs in process as a user's token (kernel/http/in-process.ts): they act as
 * that token under every rule of the API, come from the address the plugin names, stop at once
 * when the token is revoked — and nothing sent over the network, nor a copy of a marked request,
 * can act that way. Also `GET /admin/overview`, the figures no other route gives.
 */
import { describe, expect, it } from 'vitest';
import { inProcessRequest } from '../../kernel/http/in-process.ts';
import { sha256Hex } from '../../kernel/identity/secrets.ts';
import { definePlugin, type PluginContext } from '../../kernel/plugin.ts';
import { plugins } from '../../plugins/index.ts';
import { consoleDrivers } from '../helpers/drivers.ts';
import { useTestHub } from '../helpers/hub.ts';

/** A plugin that only keeps its context, so the test can use `ctx.api` as a plugin would. */
let captured: PluginContext<undefined> | undefined;
const spy = definePlugin({
  name: 'in-process-spy',
  setup(ctx) {
    captured = ctx;
    return {};
  },
});

describe.each(consoleDrivers())('in-process requests on %s', (kind) => {
  const t = useTestHub(kind, { plugins: [...plugins, spy] });
  const api = () => captured!.api;

  it("acts as the caller's token, from the caller's address, and only admins reach /admin", async () => {
    const member = await t.createUser({ role: 'user' });
    const asMember = { tokenHash: sha256Hex(member.token), ip: '198.51.100.7' };
    const session = await api().fetch(
      inProcessRequest('GET', '/auth/session', { tenant: '__default__' }),
      asMember,
    );
    expect(session.status).toBe(200);
    expect(((await session.json()) as { user: { id: string } }).user.id).toBe(member.id);
    const admin = await api().fetch(
      inProcessRequest('GET', '/admin/users', { tenant: '__default__' }),
      asMember,
    );
    expect(admin.status).toBe(403);
    const asAdmin = { tokenHash: sha256Hex(t.adminToken), ip: '198.51.100.7' };
    const created = await api().fetch(
      inProcessRequest('POST', '/collections', {
        tenant: '__default__',
        body: { name: 'Made in process' },
        requestId: 'console-page-1',
      }),
      asAdmin,
    );
    expect(created.status).toBe(200);
    const { id } = (await created.json()) as { id: string };
    const events = await t.request('GET', `/admin/audit?targetId=${id}`);
    expect(events.body.events[0]).toMatchObject({
      action: 'collection.created',
      actor: { id: t.adminId },
      ip: '198.51.100.7',
      requestId: 'console-page-1',
    });
  });

  it('refuses the token once revoked, on the very next request', async () => {
    const member = await t.createUser({ role: 'user' });
    const caller = { tokenHash: sha256Hex(member.token), ip: '198.51.100.7' };
    const ask = () =>
      api().fetch(inProcessRequest('GET', '/auth/session', { tenant: '__default__' }), caller);
    expect((await ask()).status).toBe(200);
    const [token] = (await t.request('GET', `/admin/tokens?userId=${member.id}`)).body.tokens;
    expect((await t.request('DELETE', `/admin/tokens/${token.id}`)).status).toBe(204);
    expect((await ask()).status).toBe(401);
  });

  it('never lets a request from the network, or a copy of a marked one, act in process', async () => {
    const caller = { tokenHash: sha256Hex(t.adminToken), ip: '198.51.100.7' };
    const marked = inProcessRequest('GET', '/admin/users', { tenant: '__default__' });
    // The same headers the console sends, from the network: no token, so 401.
    const network = await t.request('GET', '/admin/users', {
      token: null,
      headers: Object.fromEntries(marked.headers),
    });
    expect(network.status).toBe(401);
    // A copy is another object: never marked, whoever made it.
    expect((await t.hub.fetch(new Request(marked))).status).toBe(401);
    expect((await api().fetch(marked, caller)).status).toBe(200);
  });

  it('answers GET /admin/overview with counts, database, read cache and circuit breakers', async () => {
    const before = (await t.request('GET', '/admin/overview')).body;
    await t.request('POST', '/collections', { body: { name: 'Counted' } });
    const after = await t.request('GET', '/admin/overview');
    expect(after.status).toBe(200);
    expect(after.headers.get('cache-control')).toBe('no-store');
    expect(after.body.database).toBe(kind);
    expect(after.body.circuits.filter((circuit: { open: boolean }) => circuit.open)).toEqual([]);
    if (kind === 'postgres')
      expect(after.body.circuits).toContainEqual({ name: 'database', open: false });
    expect(Object.keys(after.body.counts)).toEqual([
      'users',
      'tokens',
      'collections',
      'requests',
      'discussions',
    ]);
    expect(after.body.counts.collections).toBe(before.counts.collections + 1);
    const { hits, misses, hitRate } = after.body.readCache;
    expect(hitRate).toBe(Math.round((hits / (hits + misses)) * 1000) / 1000);
    const member = await t.createUser({ role: 'user' });
    expect((await t.request('GET', '/admin/overview', { token: member.token })).status).toBe(403);
  });
});
