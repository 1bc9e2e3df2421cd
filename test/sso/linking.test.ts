/**
 * Linking an account made before single sign-on to the person's identity, never by name, against
 * the real OpenID Provider: an administrator's one-time link makes the next sign-in open that
 * account (no `alice-2`), once, within its lifetime; or the administrator links the person's
 * subject directly. A second link either way is refused, not moved silently. On SQLite and
 * PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../../kernel/clock.ts';
import { encode, importCookieKey, type Pending } from '../../plugins/sso/pending.ts';
import { ssoKeysTable, ssoLinkCodesTable } from '../../plugins/sso/tables.ts';
import { driverAvailable } from '../helpers/databases.ts';
import { useTestHub } from '../helpers/hub.ts';
import { oidcClient, startTestIdp, type TestIdp } from '../helpers/oidc-idp.ts';
import { callback, codeOf, inProcess, walkToCallback } from './browserless.ts';

const HUB_BASE = 'http://hub.example.test';
const DRIVERS = (['sqlite', 'postgres'] as const).filter(driverAvailable);

describe.each(DRIVERS)('linking an existing account (%s)', (kind) => {
  let idp: TestIdp;
  const clock = createManualClock(new Date('2026-06-01T10:00:00.000Z'));
  beforeAll(async () => {
    idp = await startTestIdp({
      redirectUri: `${HUB_BASE}/auth/sso/callback`,
      people: ['alice', 'bea', 'cal', 'dan', 'gil'].map((login) => ({ login, groups: ['staff'] })),
    });
  });
  afterAll(async () => idp?.close());
  const t = useTestHub(kind, () => ({
    clock,
    config: {
      server: { publicUrl: HUB_BASE },
      sso: { oidc: oidcClient(idp) },
    },
  }));
  const hub = inProcess(t);
  const signIn = async (login: string, link?: string) => {
    const page = await callback(
      { hub },
      await walkToCallback({ hub, hubBase: HUB_BASE, login, ...(link ? { link } : {}) }),
    );
    return { status: page.status, html: await page.text() };
  };
  /** The user a sign-in's code redeems for. */
  const userOf = async (html: string) => {
    const redeemed = await t.request('POST', '/auth/invitations/redeem', {
      token: null,
      body: { secret: codeOf(html) },
    });
    return (await t.request('GET', '/auth/session', { token: redeemed.body.secret })).body.user;
  };
  const linkCode = async (userId: string, expiresInHours?: number) => {
    const answer = await t.request('POST', '/admin/sso/link-codes', {
      body: { userId, ...(expiresInHours ? { expiresInHours } : {}) },
    });
    expect(answer.status).toBe(201);
    return answer.body as { url: string; expiresAt: string };
  };
  const codeIn = (url: string) => new URL(url).searchParams.get('link')!;
  const names = async () =>
    ((await t.request('GET', '/admin/users')).body.users as { name: string }[]).map((u) => u.name);

  it("opens the existing account with an admin's one-time link, once, instead of making alice-2", async () => {
    const alice = await t.createUser({ name: 'alice', collectionAccess: ['*'] });
    const { url, expiresAt } = await linkCode(alice.id);
    expect(url).toMatch(new RegExp(`^${HUB_BASE}/login\\?link=hbl_[\\w-]{43}$`));
    expect(expiresAt).toBe('2026-06-02T10:00:00.000Z');
    const login = await hub(`/login?link=${codeIn(url)}`, { headers: {} });
    expect(await login.text()).toContain('link it to the hub user <b>alice</b>');

    const page = await signIn('alice', codeIn(url));
    expect(page.status).toBe(200);
    expect((await userOf(page.html)).id).toBe(alice.id);
    expect(await names()).not.toContain('alice-2');
    const links = (await t.request('GET', '/admin/sso/links')).body.links;
    expect(links).toContainEqual(
      expect.objectContaining({ userId: alice.id, issuer: idp.issuer, subject: 'alice' }),
    );
    // The next plain sign-in finds the account by the link.
    expect((await userOf((await signIn('alice')).html)).id).toBe(alice.id);
    // Spent: the link no longer works.
    const again = await hub(`/login?link=${codeIn(url)}`, { headers: {} });
    expect(again.status).toBe(400);
    expect(await again.text()).toContain('This link is not valid any more');
    const audit = (await t.request('GET', `/admin/audit?targetId=${alice.id}`)).body.events;
    expect(audit.map((e: { action: string }) => e.action)).toEqual(
      expect.arrayContaining(['sso.link_code_created', 'sso.linked']),
    );
  });

  it('refuses a link past its lifetime, and a link replaced by a newer one', async () => {
    const cal = await t.createUser({ name: 'cal' });
    const first = await linkCode(cal.id, 1);
    const second = await linkCode(cal.id, 1);
    expect((await hub(`/login?link=${codeIn(first.url)}`, { headers: {} })).status).toBe(400);
    clock.advance(3_600_000);
    expect((await hub(`/login?link=${codeIn(second.url)}`, { headers: {} })).status).toBe(400);
    expect((await hub('/login?link=hbl_not-a-code', { headers: {} })).status).toBe(400);
  });

  it('links by subject, and refuses a second link either way instead of moving one', async () => {
    // bea signed in before her account was linked: the hub made "bea-2" beside the old "bea".
    const bea = await t.createUser({ name: 'bea' });
    const made = await userOf((await signIn('bea')).html);
    expect(made.name).toBe('bea-2');
    const link = (body: Record<string, unknown>) => t.request('POST', '/admin/sso/links', { body });
    const taken = await link({ userId: bea.id, subject: 'bea' });
    expect(taken.status).toBe(409);
    expect(taken.body.error).toBe(
      'The subject bea is linked to another user ("bea-2"); unlink that user first.',
    );
    expect((await t.request('DELETE', `/admin/sso/links/${made.id}`)).status).toBe(204);
    const linked = await link({ userId: bea.id, subject: 'bea' });
    expect(linked.status).toBe(201);
    expect(linked.body).toMatchObject({ userId: bea.id, issuer: idp.issuer, subject: 'bea' });
    // The same link again changes nothing, and says so: 200 with the link as it was.
    const same = await link({ userId: bea.id, subject: 'bea' });
    expect([same.status, same.body]).toEqual([200, linked.body]);
    const linkedEvents = (
      await t.request('GET', `/admin/audit?targetId=${bea.id}&action=sso.linked`)
    ).body.events;
    expect(linkedEvents).toHaveLength(1);
    expect((await userOf((await signIn('bea')).html)).id).toBe(bea.id);
    // bea is linked now: no second identity, and no link code.
    const second = await link({ userId: bea.id, subject: 'someone-else' });
    expect(second.status).toBe(409);
    expect(second.body.error).toContain('User "bea" is linked to the identity provider already');
    expect(
      (await t.request('POST', '/admin/sso/link-codes', { body: { userId: bea.id } })).status,
    ).toBe(409);
  });

  it("links no account from a cookie forged with what a copy of the database holds: the cookie's key and the link code's hash", async () => {
    const fay = await t.createUser({ name: 'fay' });
    await linkCode(fay.id);
    // The holder of a backup signs in as themselves and re-signs their cookie to name fay's link.
    const walk = await walkToCallback({ hub, hubBase: HUB_BASE, login: 'gil' });
    const [key] = await t.store().table(ssoKeysTable).find();
    const stored = await t.store().table(ssoLinkCodesTable).findOne({ userId: fay.id });
    const [payload] = walk.hubJar.get('hub_sso')!.split('.');
    const pending = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as Pending;
    walk.hubJar.set(
      'hub_sso',
      await encode({ ...pending, link: stored!.codeHash }, await importCookieKey(key!.secret)),
    );
    const page = await callback({ hub }, walk);
    expect(page.status).toBe(400);
    expect(codeOf(await page.text())).toBeNull();
    const links = (await t.request('GET', '/admin/sso/links')).body.links;
    expect(links.map((l: { userId: string }) => l.userId)).not.toContain(fay.id);
  });

  it('audits an unlink as it audits a link', async () => {
    const user = await t.createUser({ name: 'eli' });
    const linked = await t.request('POST', '/admin/sso/links', {
      body: { userId: user.id, subject: 'eli-subject' },
    });
    expect(linked.status).toBe(201);
    expect((await t.request('DELETE', `/admin/sso/links/${user.id}`)).status).toBe(204);
    expect((await t.request('DELETE', `/admin/sso/links/${user.id}`)).status).toBe(404);
    const events = (await t.request('GET', `/admin/audit?targetId=${user.id}`)).body.events;
    expect(
      events.map((e: { action: string; details: Record<string, unknown> }) => [
        e.action,
        e.details.subject,
      ]),
    ).toEqual([
      ['sso.unlinked', 'eli-subject'],
      ['sso.linked', 'eli-subject'],
      ['user.created', undefined],
    ]);
    expect(events[0]).toMatchObject({
      actor: { id: t.adminId },
      target: { kind: 'user', id: user.id, name: 'eli' },
      details: { issuer: idp.issuer, subject: 'eli-subject' },
    });
  });

  it("refuses a one-time link whose signer is another user's already, and leaves the link usable", async () => {
    const first = await userOf((await signIn('dan')).html);
    const other = await t.createUser({ name: 'daniel' });
    const { url } = await linkCode(other.id);
    const page = await signIn('dan', codeIn(url));
    expect(page.status).toBe(400);
    expect(page.html).toContain(`linked to another user (&quot;${first.name}&quot;)`);
    expect(codeOf(page.html)).toBeNull();
    expect((await hub(`/login?link=${codeIn(url)}`, { headers: {} })).status).toBe(200);
  });
});
