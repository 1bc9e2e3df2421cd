/**
 * Single sign-on with multitenancy: `/login?tenant=` picks the tenant (it must exist) and the
 * sign-in creates the user there, not in another tenant; and the callback is throttled like
 * failed authentication (429 page once an address keeps failing).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMBEDDED_DRIVER } from '../helpers/drivers.ts';
import { useTestHub } from '../helpers/hub.ts';
import { startTestIdp, type TestIdp } from '../helpers/oidc-idp.ts';
import { callback, codeOf, walkToCallback, type HubFetch } from './browserless.ts';

const HUB_BASE = 'http://hub.example.test';

describe('single sign-on with tenants and the throttle', () => {
  let idp: TestIdp;
  beforeAll(async () => {
    idp = await startTestIdp({
      redirectUri: `${HUB_BASE}/auth/sso/callback`,
      people: [{ login: 'kim', groups: [] }],
    });
  });
  afterAll(async () => idp?.close());
  const t = useTestHub(EMBEDDED_DRIVER, () => ({
    config: {
      server: { publicUrl: HUB_BASE },
      multitenancy: { enabled: true },
      sso: { oidc: { issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret } },
    },
  }));
  const hub: HubFetch = async (path, init) => {
    const answer = await t.request('GET', path, { token: null, headers: init.headers });
    return new Response(answer.status === 302 ? null : answer.text, {
      status: answer.status,
      headers: answer.headers,
    });
  };

  it('signs in to the tenant named on /login, which must exist', async () => {
    await t.hub.identity.tenants.create('acme', 'Acme Hub');
    const missing = await hub('/login?tenant=nope', { headers: {} });
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain('no tenant &quot;nope&quot;');

    const login = await (await hub('/login?tenant=acme', { headers: {} })).text();
    expect(login).toContain('Sign in to Acme Hub');
    const walk = await walkToCallback({ hub, hubBase: HUB_BASE, login: 'kim', tenant: 'acme' });
    const page = await callback({ hub }, walk);
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain("You're signed in to Acme Hub");
    const secret = codeOf(html)!;
    // The code belongs to the tenant: redeemed there, unknown elsewhere.
    const elsewhere = await t.request('POST', '/auth/invitations/redeem', {
      token: null,
      body: { secret },
    });
    expect(elsewhere.status).toBe(404);
    const redeemed = await t.request('POST', '/auth/invitations/redeem', {
      token: null,
      tenant: 'acme',
      body: { secret },
    });
    expect(redeemed.status).toBe(201);
    const session = await t.request('GET', '/auth/session', {
      token: redeemed.body.secret,
      tenant: 'acme',
    });
    expect(session.body.user.name).toBe('kim');
    const defaults = (await t.request('GET', '/admin/users')).body.users;
    expect(defaults.some((u: { name: string }) => u.name === 'kim')).toBe(false);
  });

  it('keeps a role an admin gave when adminGroups is not set', async () => {
    const first = await callback(
      { hub },
      await walkToCallback({ hub, hubBase: HUB_BASE, login: 'kim' }),
    );
    expect(first.status).toBe(200);
    const kim = (await t.request('GET', '/admin/users')).body.users.find(
      (u: { name: string }) => u.name === 'kim',
    );
    const promoted = await t.request('PUT', `/admin/users/${kim.id}`, { body: { role: 'admin' } });
    expect(promoted.status).toBe(200);
    const again = await callback(
      { hub },
      await walkToCallback({ hub, hubBase: HUB_BASE, login: 'kim' }),
    );
    expect(again.status).toBe(200);
    const after = (await t.request('GET', '/admin/users')).body.users.find(
      (u: { id: string }) => u.id === kim.id,
    );
    expect(after.role).toBe('admin');
  });

  it('answers 429 pages once an address keeps failing callbacks, even for a valid one', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 10; i += 1)
      statuses.push((await hub('/auth/sso/callback?code=x&state=y', { headers: {} })).status);
    expect(statuses).toEqual(Array(10).fill(400));
    const walk = await walkToCallback({ hub, hubBase: HUB_BASE, login: 'kim' });
    const blocked = await callback({ hub }, walk);
    const html = await blocked.text();
    expect(blocked.status).toBe(429);
    expect(html).toContain('Too many failed sign-ins');
    expect(codeOf(html)).toBeNull();
  });
});

describe('single sign-on when the provider sends no name or cannot be reached', () => {
  let idp: TestIdp;
  beforeAll(async () => {
    idp = await startTestIdp({
      redirectUri: `${HUB_BASE}/auth/sso/callback`,
      people: [{ login: 'lou' }],
    });
  });
  afterAll(async () => idp?.close());
  const t = useTestHub(EMBEDDED_DRIVER, () => ({
    config: {
      server: { publicUrl: HUB_BASE },
      sso: {
        oidc: {
          issuer: idp.issuer,
          clientId: idp.clientId,
          clientSecret: idp.clientSecret,
          usernameClaim: 'email',
        },
      },
    },
  }));
  const hub: HubFetch = async (path, init) => {
    const answer = await t.request('GET', path, { token: null, headers: init.headers });
    return new Response(answer.status === 302 ? null : answer.text, {
      status: answer.status,
      headers: answer.headers,
    });
  };

  it('refuses with a page naming the missing claim, and creates no user', async () => {
    const before = (await t.request('GET', '/admin/users')).body.users.length;
    const page = await callback(
      { hub },
      await walkToCallback({ hub, hubBase: HUB_BASE, login: 'lou' }),
    );
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
