/**
 * Single sign-on against a real OpenID Provider (oidc-provider in process), walked over HTTP with
 * a cookie jar: the code a sign-in ends in is redeemed like any invitation, the token expires
 * after `sso.tokenTtlDays`, role and access follow the groups claim, the second sign-in finds the
 * same user, and every refusal is a 4xx page without a code. On every configured driver (SQLite,
 * PostgreSQL, MySQL, Firestore), which also runs the plugin's tables and the token expiry there.
 */
import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../kernel/clock.ts';
import { DEFAULT_TENANT_ID } from '../../kernel/identity/tenants.ts';
import { driverAvailable } from '../helpers/databases.ts';
import type { UsedTestHub } from '../helpers/hub.ts';
import { useSsoHub } from '../helpers/sso-hub.ts';
import { callback, codeOf, inProcess, walkToCallback } from './browserless.ts';

const HUB_BASE = 'http://hub.example.test';
const DAY_MS = 86_400_000;

const PEOPLE = [
  { login: 'alice', groups: ['hub-users'] },
  { login: 'bob', groups: ['hub-users', 'hub-admins'] },
  { login: 'carol', groups: ['hub-users', 'qa'] },
  { login: 'dave', groups: ['hub-users'] },
  { login: 'erin', groups: ['hub-users'] },
  { login: 'mallory', groups: ['contractors'] },
  { login: 'frank', groups: ['hub-users'] },
  { login: 'gina', groups: ['hub-users'] },
  { login: 'hana', groups: ['hub-users'] },
];

const DRIVERS = (['sqlite', 'postgres', 'mysql', 'firestore'] as const).filter(driverAvailable);

describe.each(DRIVERS)('single sign-on over HTTP (%s)', (kind) => {
  const clock = createManualClock(new Date());
  const signOn = useSsoHub(kind, {
    hubBase: HUB_BASE,
    people: PEOPLE,
    clock,
    oidc: {
      allowedGroups: ['hub-users'],
      adminGroups: ['hub-admins'],
      access: { llmAccess: false },
      groupAccess: { qa: { collectionAccess: ['*'], llmAccess: true } },
    },
    sso: { tokenTtlDays: 30 },
  });
  const t: UsedTestHub = signOn.t;

  /** The hub in process; every answer is checked against /openapi.json. */
  const hub = inProcess(t);
  const walk = (login: string) => walkToCallback({ hub, hubBase: HUB_BASE, login });
  const signIn = async (login: string) => {
    const page = await callback({ hub }, await walk(login));
    return { status: page.status, html: await page.text() };
  };
  const redeem = (secret: string) =>
    t.request('POST', '/auth/invitations/redeem', { token: null, body: { secret } });

  it('signs a person in, and the code redeems for a token that expires after tokenTtlDays', async () => {
    const page = await signIn('alice');
    expect(page.status).toBe(200);
    expect(page.html).toContain("You're signed in to");
    expect(page.html).toContain(`<code id="hub-address">${HUB_BASE}</code>`);
    const code = codeOf(page.html)!;
    expect(code).toMatch(/^hbi_/);
    const deep = new URL(
      /id="open"[^>]*href="([^"]+)"/.exec(page.html)![1]!.replace(/&amp;/g, '&'),
    );
    expect(`${deep.protocol}//${deep.host}${deep.pathname}`).toBe('harborclient://team-hub/join');
    expect(deep.searchParams.get('url')).toBe(HUB_BASE);
    expect(deep.searchParams.get('name')).toBe('alice');
    expect(deep.searchParams.get('role')).toBe('user');

    // The audit log names who signed in, through which provider, and never the code.
    const audit = await t.request('GET', '/admin/audit?action=sso.signed_in');
    const signedIn = audit.body.events.find(
      (event: { target: { name: string } }) => event.target.name === 'alice',
    );
    expect(signedIn).toMatchObject({ actor: { name: 'alice' }, target: { kind: 'user' } });
    expect(JSON.stringify(audit.body)).not.toContain(code);

    const redeemed = await redeem(code);
    expect(redeemed.status).toBe(201);
    expect((await redeem(code)).status).toBe(410);
    const session = await t.request('GET', '/auth/session', { token: redeemed.body.secret });
    expect(session.status).toBe(200);
    expect(session.body.user).toMatchObject({ name: 'alice', role: 'user' });

    clock.advance(30 * DAY_MS - 60_000);
    expect((await t.request('GET', '/auth/session', { token: redeemed.body.secret })).status).toBe(
      200,
    );
    clock.advance(60_000);
    const expired = await t.request('GET', '/auth/session', { token: redeemed.body.secret });
    expect(expired.status).toBe(401);
    // Exactly as a revoked token is refused.
    const other = await t.createUser({});
    const tokenId = (await t.request('GET', '/auth/session', { token: other.token })).body.token.id;
    await t.hub.identity.tokens.revoke(t.hub.driver().forTenant(DEFAULT_TENANT_ID), tokenId);
    const revoked = await t.request('GET', '/auth/session', { token: other.token });
    expect(revoked.status).toBe(401);
    expect(expired.body).toEqual(revoked.body);
    expect(expired.headers.get('www-authenticate')).toBe(revoked.headers.get('www-authenticate'));
    // A token issued by an administrator still has no expiry.
    expect((await t.request('GET', '/auth/session')).status).toBe(200);
  });

  it('expires the one-time code after codeMinutes', async () => {
    const code = codeOf((await signIn('frank')).html)!;
    clock.advance(10 * 60_000);
    expect((await redeem(code)).status).toBe(410);
  });

  it('gives role admin to adminGroups and access from groupAccess', async () => {
    const admin = await signIn('bob');
    expect(admin.status).toBe(200);
    const bob = await redeem(codeOf(admin.html)!);
    const session = await t.request('GET', '/auth/session', { token: bob.body.secret });
    expect(session.body.user).toMatchObject({ name: 'bob', role: 'admin' });

    const qa = await signIn('carol');
    const users = (await t.request('GET', '/admin/users')).body.users;
    const carol = users.find((u: { name: string }) => u.name === 'carol');
    expect(qa.status).toBe(200);
    expect(carol).toMatchObject({ role: 'user', collectionAccess: ['*'], llmAccess: true });
  });

  it('maps the second sign-in to the same user and applies changed groups', async () => {
    expect((await signIn('erin')).status).toBe(200);
    const before = (await t.request('GET', '/admin/sso/links')).body.links;
    const first = before.find((l: { subject: string }) => l.subject === 'erin');
    signOn.idp.people.get('erin')!.groups = ['hub-users', 'hub-admins', 'qa'];
    const again = await signIn('erin');
    expect(again.status).toBe(200);
    const links = (await t.request('GET', '/admin/sso/links')).body.links;
    expect(links.filter((l: { subject: string }) => l.subject === 'erin')).toEqual([
      expect.objectContaining({ userId: first.userId, issuer: signOn.idp.issuer }),
    ]);
    const users = (await t.request('GET', '/admin/users')).body.users;
    expect(users.find((u: { id: string }) => u.id === first.userId)).toMatchObject({
      identityProvider: { issuer: signOn.idp.issuer, subject: 'erin' },
      name: 'erin',
      role: 'admin',
      collectionAccess: [],
      llmAccess: true,
    });
    // Removed from the allowed groups at the provider: the next sign-in is refused.
    signOn.idp.people.get('erin')!.groups = ['contractors'];
    const refused = await signIn('erin');
    expect(refused.status).toBe(403);
    expect(codeOf(refused.html)).toBeNull();
  });

  it('never takes over an existing account of the same name', async () => {
    const existing = await t.createUser({ name: 'dave' });
    const page = await signIn('dave');
    expect(page.status).toBe(200);
    const redeemed = await redeem(codeOf(page.html)!);
    const session = await t.request('GET', '/auth/session', { token: redeemed.body.secret });
    expect(session.body.user.name).toBe('dave-2');
    expect(session.body.user.id).not.toBe(existing.id);
    const theirs = await t.request('GET', '/auth/session', { token: existing.token });
    expect(theirs.body.user).toMatchObject({ id: existing.id, name: 'dave' });
  });

  it('unlinks a user: the account stays and the next sign-in creates a new one', async () => {
    await signIn('gina');
    const link = (await t.request('GET', '/admin/sso/links')).body.links.find(
      (l: { subject: string }) => l.subject === 'gina',
    );
    expect((await t.request('DELETE', `/admin/sso/links/${link.userId}`)).status).toBe(204);
    expect((await t.request('DELETE', `/admin/sso/links/${link.userId}`)).status).toBe(404);
    const next = await redeem(codeOf((await signIn('gina')).html)!);
    const session = await t.request('GET', '/auth/session', { token: next.body.secret });
    expect(session.body.user).toMatchObject({ name: 'gina-2' });
    expect(session.body.user.id).not.toBe(link.userId);
  });

  it('names /login on the front page', async () => {
    const front = await t.request('GET', '/', { token: null });
    expect(front.text).toContain('<a id="login" href="/login">');
  });

  it("removes the link with the user: the person's next sign-in creates a new account", async () => {
    const first = await redeem(codeOf((await signIn('hana')).html)!);
    const session = await t.request('GET', '/auth/session', { token: first.body.secret });
    expect((await t.request('DELETE', `/admin/users/${session.body.user.id}`)).status).toBe(204);
    const links = (await t.request('GET', '/admin/sso/links')).body.links;
    expect(links.some((l: { userId: string }) => l.userId === session.body.user.id)).toBe(false);
    const again = await redeem(codeOf((await signIn('hana')).html)!);
    const next = await t.request('GET', '/auth/session', { token: again.body.secret });
    expect(next.body.user.name).toBe('hana');
    expect(next.body.user.id).not.toBe(session.body.user.id);
  });

  describe('refusals', () => {
    const noCode = (page: { status: number; html: string }, status: number, text: RegExp) => {
      expect(page.status).toBe(status);
      expect(page.html).toMatch(text);
      expect(page.html).not.toContain('hbi_');
    };

    it('refuses a person outside allowedGroups and creates no user', async () => {
      noCode(await signIn('mallory'), 403, /not in a group allowed on this hub/);
      const users = (await t.request('GET', '/admin/users')).body.users;
      expect(users.some((u: { name: string }) => u.name === 'mallory')).toBe(false);
      const audit = await t.request('GET', '/admin/audit?action=sso.refused');
      expect(
        audit.body.events.find((e: { target: { name: string } }) => e.target.name === 'mallory'),
      ).toMatchObject({
        actor: null,
        // The callback's own request: the event names it even though its store is the sign-in's.
        requestId: expect.any(String),
        details: { reason: 'not in an allowed group' },
      });
    });

    it('refuses a forged state', async () => {
      const w = await walk('alice');
      const forged = w.callback.replace(/state=[^&]+/, 'state=forged-state-value');
      const page = await callback({ hub }, w, forged);
      noCode({ status: page.status, html: await page.text() }, 400, /does not belong to a sign-in/);
    });

    it('refuses a replayed callback', async () => {
      const w = await walk('alice');
      const first = await callback({ hub }, w);
      expect(first.status).toBe(200);
      const again = await callback({ hub }, w);
      noCode({ status: again.status, html: await again.text() }, 400, /used already/);
    });

    it('refuses a callback without the browser cookie', async () => {
      const w = await walk('alice');
      const page = await hub(w.callback, { headers: {} });
      noCode({ status: page.status, html: await page.text() }, 400, /no sign-in in progress/);
    });

    it('refuses an ID token for another audience', async () => {
      signOn.idp.tamper = (claims) => ({ ...claims, aud: 'another-client' });
      try {
        noCode(await signIn('alice'), 400, /failed a check: .*&quot;aud&quot;/);
      } finally {
        signOn.idp.tamper = null;
      }
    });

    it('refuses an expired ID token', async () => {
      const now = Math.floor(Date.now() / 1000);
      signOn.idp.tamper = (claims) => ({ ...claims, iat: now - 7200, exp: now - 3600 });
      try {
        noCode(await signIn('alice'), 400, /failed a check: .*&quot;exp&quot;/);
      } finally {
        signOn.idp.tamper = null;
      }
    });

    it("shows the provider's error", async () => {
      const w = await walk('alice');
      const state = new URLSearchParams(w.callback.split('?')[1]).get('state')!;
      const page = await callback(
        { hub },
        w,
        `/auth/sso/callback?error=access_denied&error_description=${encodeURIComponent('User said no')}&state=${state}`,
      );
      noCode({ status: page.status, html: await page.text() }, 400, /access_denied: User said no/);
    });

    it('refuses a tenant while multitenancy is off', async () => {
      const page = await hub('/login?tenant=other', { headers: {} });
      expect(page.status).toBe(400);
      expect(await page.text()).toContain('tenant:');
    });
  });
});
