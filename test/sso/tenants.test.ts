/**
 * Single sign-on per tenant, against the real OpenID Provider, with two tenants besides the
 * default one: only the tenants the `sso` section names admit a sign-in, each with its own rules
 * (the default tenant's admin group makes nobody an admin elsewhere); a tenant that is not
 * admitted is refused at /login, at the start and, after a reload removed it, at the callback;
 * the result page's links carry the tenant. On SQLite and PostgreSQL.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { driverAvailable } from '../helpers/databases.ts';
import { useTestHub } from '../helpers/hub.ts';
import { oidcClient, startTestIdp, type TestIdp } from '../helpers/oidc-idp.ts';
import { callback, codeOf, inProcess, walkToCallback } from './browserless.ts';

const HUB_BASE = 'http://hub.example.test';
const DRIVERS = (['sqlite', 'postgres'] as const).filter(driverAvailable);

const PEOPLE = [
  { login: 'boss', groups: ['hub-admins', 'acme-users'] },
  { login: 'hal', groups: ['hub-admins'] },
  { login: 'ann', groups: ['acme-users'] },
  { login: 'cid', groups: ['acme-users', 'acme-admins'] },
];

const decode = (text: string) => text.replace(/&amp;/g, '&').replace(/&quot;/g, '"');
const reasonOf = (html: string) => decode(/<p id="reason">([^<]*)<\/p>/.exec(html)?.[1] ?? '');
const openLink = (html: string) => new URL(decode(/id="open"[^>]*href="([^"]+)"/.exec(html)![1]!));
const joinLinkOf = (html: string) =>
  new URL(decode(/<code class="address" id="join-link">([^<]+)<\/code>/.exec(html)![1]!));

describe.each(DRIVERS)('single sign-on per tenant (%s)', (kind) => {
  let idp: TestIdp;
  let dir: string;
  let file: string;
  const config = (sso: Record<string, unknown> = {}) => ({
    logging: { level: 'silent' },
    server: { publicUrl: HUB_BASE },
    multitenancy: { enabled: true },
    sso: {
      oidc: {
        ...oidcClient(idp),
        adminGroups: ['hub-admins'],
      },
      tenants: { acme: { allowedGroups: ['acme-users'], adminGroups: ['acme-admins'] } },
      ...sso,
    },
  });
  beforeAll(async () => {
    idp = await startTestIdp({ redirectUri: `${HUB_BASE}/auth/sso/callback`, people: PEOPLE });
    dir = await mkdtemp(join(tmpdir(), 'hub-sso-tenants-'));
    file = join(dir, 'server.yaml');
    await writeFile(file, stringify(config()));
  });
  afterAll(async () => {
    await idp?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  const t = useTestHub(kind, () => ({ configPath: file, config: config() }));
  const hub = inProcess(t);
  beforeAll(async () => {
    await t.hub.identity.tenants.create('acme', 'Acme Hub');
    await t.hub.identity.tenants.create('beta', 'Beta Hub');
  });
  /** Writes the config file and reloads it. */
  const reload = async (sso: Record<string, unknown> = {}) => {
    await writeFile(file, stringify(config(sso)));
    const outcome = await t.hub.reload();
    if (!outcome.ok) throw new Error(outcome.fatalError);
  };
  const signIn = async (login: string, tenant?: string) => {
    const page = await callback(
      { hub },
      await walkToCallback({ hub, hubBase: HUB_BASE, login, ...(tenant ? { tenant } : {}) }),
    );
    return { status: page.status, html: await page.text() };
  };
  const usersOf = async (tenant: string) => {
    const admin = await t.createUser({ role: 'admin' }, tenant);
    return (await t.request('GET', '/admin/users', { token: admin.token, tenant })).body.users as {
      name: string;
      role: string;
    }[];
  };

  it('refuses a tenant the section does not name at /login and at the start, exactly as one that does not exist', async () => {
    for (const path of ['/login', '/auth/sso/start']) {
      const beta = await hub(`${path}?tenant=beta`, { headers: {} });
      const nope = await hub(`${path}?tenant=nope`, { headers: {} });
      expect([beta.status, nope.status]).toEqual([404, 404]);
      expect(beta.headers.get('set-cookie')).toBeNull();
      const [betaReason, nopeReason] = [reasonOf(await beta.text()), reasonOf(await nope.text())];
      expect(betaReason).toBe('tenant: single sign-on is not available for "beta" on this hub.');
      expect(nopeReason).toBe(betaReason.replace('beta', 'nope'));
    }
    const login = await hub('/login?tenant=acme', { headers: {} });
    expect(login.status).toBe(200);
    // The tenant's display name is never on the login page, which anyone can open.
    const html = await login.text();
    expect(html).not.toContain('Acme Hub');
    expect(html).toContain('Tenant <b>acme</b>');
  });

  it("signs in to a named tenant by that tenant's rules alone: the default tenant's admin group makes no admin there", async () => {
    const atAcme = await signIn('boss', 'acme');
    expect(atAcme.status).toBe(200);
    expect(atAcme.html).toContain("You're signed in to Acme Hub");
    expect((await usersOf('acme')).find((u) => u.name === 'boss')).toMatchObject({
      role: 'user',
    });
    // In the default tenant the same person is an admin, by sso.oidc's adminGroups.
    expect((await signIn('boss')).status).toBe(200);
    expect((await usersOf('__default__')).find((u) => u.name === 'boss')).toMatchObject({
      role: 'admin',
    });
    // Only acme's own admin group makes admins of acme.
    expect((await signIn('cid', 'acme')).status).toBe(200);
    expect((await usersOf('acme')).find((u) => u.name === 'cid')).toMatchObject({
      role: 'admin',
    });
    // Outside acme's allowed groups, a default-tenant admin is refused there and gets nothing.
    const hal = await signIn('hal', 'acme');
    expect(hal.status).toBe(403);
    expect(codeOf(hal.html)).toBeNull();
    expect((await usersOf('acme')).some((u) => u.name === 'hal')).toBe(false);
  });

  it('carries the tenant in the deep link and the join link, and the code redeems there', async () => {
    const page = await signIn('ann', 'acme');
    expect(page.status).toBe(200);
    const deep = openLink(page.html);
    expect(deep.searchParams.get('tenant')).toBe('acme');
    expect(deep.searchParams.get('url')).toBe(HUB_BASE);
    expect(joinLinkOf(page.html).searchParams.get('tenant')).toBe('acme');
    expect(page.html).toContain("set HarborClient's tenant for this hub to it");
    const secret = codeOf(page.html)!;
    const redeem = (tenant?: string) =>
      t.request('POST', '/auth/invitations/redeem', {
        token: null,
        ...(tenant ? { tenant } : {}),
        body: { secret },
      });
    expect((await redeem()).status).toBe(404);
    const redeemed = await redeem('acme');
    expect(redeemed.status).toBe(201);
    const session = await t.request('GET', '/auth/session', {
      token: redeemed.body.secret,
      tenant: 'acme',
    });
    expect(session.body).toMatchObject({ tenantId: 'acme', user: { name: 'ann' } });
    // The default tenant's page and links name no tenant.
    const home = await signIn('ann');
    expect(openLink(home.html).searchParams.has('tenant')).toBe(false);
    expect(home.html).not.toContain('id="tenant"');
  });

  it('refuses at the callback a tenant that a reload removed after the start, and creates no account', async () => {
    idp.people.set('eve', { login: 'eve', groups: ['acme-users'] });
    const walk = await walkToCallback({ hub, hubBase: HUB_BASE, login: 'eve', tenant: 'acme' });
    await reload({ tenants: {} });
    try {
      const page = await callback({ hub }, walk);
      const html = await page.text();
      expect(page.status).toBe(404);
      expect(reasonOf(html)).toBe(
        'tenant: single sign-on is not available for "acme" on this hub.',
      );
      expect(codeOf(html)).toBeNull();
      expect((await usersOf('acme')).some((u) => u.name === 'eve')).toBe(false);
      const admin = await t.createUser({ role: 'admin' }, 'acme');
      const audit = await t.request('GET', '/admin/audit?action=sso.refused', {
        token: admin.token,
        tenant: 'acme',
      });
      expect(audit.body.events[0]).toMatchObject({
        details: { reason: 'single sign-on is not enabled for this tenant' },
      });
    } finally {
      await reload();
    }
  });

  it('closes the default tenant with defaultTenant: false, and leaves the named tenants open', async () => {
    await reload({ defaultTenant: false });
    try {
      const page = await hub('/login', { headers: {} });
      expect(page.status).toBe(404);
      expect(reasonOf(await page.text())).toBe(
        'tenant: single sign-on is not available for "__default__" on this hub.',
      );
      expect((await hub('/login?tenant=acme', { headers: {} })).status).toBe(200);
    } finally {
      await reload();
    }
  });
});
