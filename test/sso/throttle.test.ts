/**
 * The callback's throttle, behind a trusted proxy where everyone shares one address
 * (`X-Forwarded-For`): failed callbacks block the address, but a callback that carries the
 * browser's own sign-in passes the block, and a success neither counts nor clears anything. Also
 * what the callback does when the provider sends no name, cannot be reached, or when an admin
 * changed a role the provider says nothing about.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ssoUsedStatesTable } from '../../plugins/sso/tables.ts';
import { EMBEDDED_DRIVER } from '../helpers/drivers.ts';
import { useTestHub } from '../helpers/hub.ts';
import { oidcClient, startTestIdp, type TestIdp } from '../helpers/oidc-idp.ts';
import { callback, codeOf, inProcess, walkToCallback } from './browserless.ts';

const HUB_BASE = 'http://hub.example.test';

describe('the callback behind a shared address (trustProxy, X-Forwarded-For)', () => {
  let idp: TestIdp;
  beforeAll(async () => {
    idp = await startTestIdp({
      redirectUri: `${HUB_BASE}/auth/sso/callback`,
      people: [{ login: 'kim' }, { login: 'lee' }],
    });
  });
  afterAll(async () => idp?.close());
  const t = useTestHub(EMBEDDED_DRIVER, () => ({
    // The proxy's own address; the clients' come in X-Forwarded-For.
    ip: '10.0.0.2',
    config: {
      server: { publicUrl: HUB_BASE, trustProxy: true },
      sso: { oidc: oidcClient(idp) },
    },
  }));
  /** Everyone behind one NAT: the proxy appends the same address for each. */
  const office = inProcess(t, { 'x-forwarded-for': '198.51.100.7' });
  const walk = (login: string) => walkToCallback({ hub: office, hubBase: HUB_BASE, login });

  it('blocks cookie-less callbacks after ten failures, yet lets a sign-in of this browser through', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 10; i += 1)
      statuses.push((await office('/auth/sso/callback?code=x&state=y', { headers: {} })).status);
    expect(statuses).toEqual(Array(10).fill(400));
    const blocked = await office('/auth/sso/callback?code=x&state=y', { headers: {} });
    expect(blocked.status).toBe(429);
    expect(await blocked.text()).toContain('Too many failed sign-ins');

    // A colleague behind the same address finishes the sign-in they started.
    const page = await callback({ hub: office }, await walk('kim'));
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(codeOf(html)).toMatch(/^hbi_/);

    // The success cleared nothing: guessing from the address is still blocked, and so is a
    // callback whose state is not the one its cookie was issued for.
    expect((await office('/auth/sso/callback?code=x&state=y', { headers: {} })).status).toBe(429);
    const w = await walk('lee');
    const forged = await callback({ hub: office }, w, w.callback.replace(/state=[^&]+/, 'state=z'));
    expect(forged.status).toBe(429);
    expect(codeOf(await forged.text())).toBeNull();
    // Another address is not blocked.
    const elsewhere = inProcess(t, { 'x-forwarded-for': '198.51.100.8' });
    expect((await elsewhere('/auth/sso/callback?code=x&state=y', { headers: {} })).status).toBe(
      400,
    );
  });

  it('stops a client that starts sign-ins and abandons them in a loop, at ten times the limit', async () => {
    const loop = { 'x-forwarded-for': '198.51.100.9' };
    /** A start and the callback of its own sign-in, as the provider returns a cancelled one. */
    const abandon = async () => {
      const started = await t.request('GET', '/auth/sso/start', { token: null, headers: loop });
      expect(started.status).toBe(302);
      const state = new URL(started.headers.get('location')!).searchParams.get('state')!;
      const cookie = started.headers.getSetCookie()[0]!.split(';')[0]!;
      return t.request('GET', `/auth/sso/callback?state=${state}&error=access_denied`, {
        token: null,
        headers: { ...loop, cookie },
      });
    };
    const used = () => t.store().table(ssoUsedStatesTable).count({});
    const before = await used();
    // Ten times the policy's ten failures: a few cancelled sign-ins lock no colleague out.
    for (let i = 0; i < 100; i += 1) expect((await abandon()).status).toBe(400);
    expect(await used()).toBe(before + 100);
    const stopped = await abandon();
    expect(stopped.status).toBe(429);
    expect(stopped.text).toContain('Too many failed sign-ins');
    expect(await used()).toBe(before + 100);
    // Guessing without a sign-in of one's own is a separate count, and so is another address.
    expect(
      (await inProcess(t, loop)('/auth/sso/callback?code=x&state=y', { headers: {} })).status,
    ).toBe(400);
    const page = await callback({ hub: office }, await walk('lee'));
    expect(page.status).toBe(200);
  });
});

describe('single sign-on when the provider sends no name or cannot be reached', () => {
  let idp: TestIdp;
  beforeAll(async () => {
    idp = await startTestIdp({
      redirectUri: `${HUB_BASE}/auth/sso/callback`,
      people: [{ login: 'lou' }, { login: 'kim', email: 'kim@example.com' }],
    });
  });
  afterAll(async () => idp?.close());
  const t = useTestHub(EMBEDDED_DRIVER, () => ({
    config: {
      server: { publicUrl: HUB_BASE },
      sso: {
        oidc: {
          ...oidcClient(idp),
          usernameClaim: 'email',
        },
      },
    },
  }));
  const hub = inProcess(t);
  const signIn = async (login: string) =>
    callback({ hub }, await walkToCallback({ hub, hubBase: HUB_BASE, login }));

  it('keeps a role an admin gave when adminGroups is not set', async () => {
    expect((await signIn('kim')).status).toBe(200);
    const kim = (await t.request('GET', '/admin/users')).body.users.find(
      (u: { name: string }) => u.name === 'kim@example.com',
    );
    const promoted = await t.request('PUT', `/admin/users/${kim.id}`, { body: { role: 'admin' } });
    expect(promoted.status).toBe(200);
    expect((await signIn('kim')).status).toBe(200);
    const after = (await t.request('GET', '/admin/users')).body.users.find(
      (u: { id: string }) => u.id === kim.id,
    );
    expect(after.role).toBe('admin');
  });

  it('refuses with a page naming the missing claim, and creates no user', async () => {
    const before = (await t.request('GET', '/admin/users')).body.users.length;
    const page = await signIn('lou');
    const html = await page.text();
    expect(page.status).toBe(400);
    expect(html).toContain('no &quot;email&quot; claim');
    expect(codeOf(html)).toBeNull();
    expect((await t.request('GET', '/admin/users')).body.users).toHaveLength(before);
  });

  it('answers a 503 page when the provider cannot be reached for the code exchange', async () => {
    idp.people.set('lou', { login: 'lou', email: 'lou@example.com' });
    const walk = await walkToCallback({ hub, hubBase: HUB_BASE, login: 'lou' });
    await idp.close();
    const page = await callback({ hub }, walk);
    const html = await page.text();
    expect(page.status).toBe(503);
    expect(html).toContain('The identity provider cannot be reached');
    expect(codeOf(html)).toBeNull();
  });
});
