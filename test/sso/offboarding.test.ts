/**
 * Offboarding with single sign-on, against the real OpenID Provider, with two tenants: every token
 * shows when it expires; `GET /admin/tokens` filters by user and refuses parameters it does not
 * know; an admin's token for a linked account expires like a sign-in's unless the admin names a
 * lifetime; and an admin blocks a person the provider still admits — their tokens stop, their
 * sign-ins are refused and audited even after the user is deleted, in that tenant only, until the
 * block is lifted. On SQLite and PostgreSQL.
 */
import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../kernel/clock.ts';
import { createInvitesService } from '../../plugins/invites/index.ts';
import { driverAvailable } from '../helpers/databases.ts';
import { useSsoHub } from '../helpers/sso-hub.ts';
import { callback, codeOf, inProcess, walkToCallback } from './browserless.ts';

const HUB_BASE = 'http://hub.example.test';
const DAY_MS = 86_400_000;
const DRIVERS = (['sqlite', 'postgres'] as const).filter(driverAvailable);

describe.each(DRIVERS)('offboarding with single sign-on (%s)', (kind) => {
  const clock = createManualClock(new Date('2026-05-01T09:00:00.000Z'));
  const signOn = useSsoHub(kind, {
    hubBase: HUB_BASE,
    people: ['kim', 'lee', 'max', 'ned', 'pat', 'ray'].map((login) => ({
      login,
      groups: ['staff'],
    })),
    clock,
    sso: { tokenTtlDays: 30 },
    tenants: { acme: 'Acme Hub' },
  });
  const { t } = signOn;
  const hub = inProcess(t);
  const signIn = async (login: string, tenant?: string) => {
    const page = await callback(
      { hub },
      await walkToCallback({ hub, hubBase: HUB_BASE, login, ...(tenant ? { tenant } : {}) }),
    );
    return { status: page.status, html: await page.text() };
  };
  /** Signs in and redeems the code: the person's token and user id. */
  const signedIn = async (login: string) => {
    const page = await signIn(login);
    expect(page.status).toBe(200);
    const redeemed = await t.request('POST', '/auth/invitations/redeem', {
      token: null,
      body: { secret: codeOf(page.html) },
    });
    const session = await t.request('GET', '/auth/session', { token: redeemed.body.secret });
    return { token: redeemed.body.secret as string, userId: session.body.user.id as string };
  };
  const inDays = (days: number) => new Date(clock.now().getTime() + days * DAY_MS).toISOString();

  it('shows expiresAt of every token, filters by userId, and refuses a parameter it does not know', async () => {
    const kim = await signedIn('kim');
    const all = (await t.request('GET', '/admin/tokens')).body.tokens;
    expect(all.find((token: { userId: string }) => token.userId === t.adminId)).toMatchObject({
      expiresAt: null,
    });
    const mine = await t.request('GET', `/admin/tokens?userId=${kim.userId}`);
    expect(mine.status).toBe(200);
    expect(mine.body.tokens).toEqual([
      expect.objectContaining({ userId: kim.userId, expiresAt: inDays(30) }),
    ]);
    const unknown = await t.request('GET', `/admin/tokens?user=${kim.userId}`);
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toContain('"user"');
    const empty = await t.request('GET', '/admin/tokens?userId=');
    expect(empty.status).toBe(400);
    expect(empty.body.error).toMatch(/^userId: /);
  });

  it("gives an admin's token for a linked account the sign-in lifetime, unless the admin names one", async () => {
    const lee = await signedIn('lee');
    const issue = (userId: string, body: Record<string, unknown>) =>
      t.request('POST', `/admin/users/${userId}/tokens`, { body: { name: 'laptop', ...body } });
    const byDefault = await issue(lee.userId, {});
    expect(byDefault.status).toBe(201);
    expect(byDefault.body.token.expiresAt).toBe(inDays(30));
    expect((await issue(lee.userId, { expiresInDays: 7 })).body.token.expiresAt).toBe(inDays(7));
    expect((await issue(lee.userId, { expiresInDays: null })).body.token.expiresAt).toBeNull();
    const local = await t.createUser({});
    expect((await issue(local.id, {})).body.token.expiresAt).toBeNull();
    const bad = await issue(lee.userId, { expiresInDays: 0 });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('expiresInDays: must be at least 1 day');
    // The default-lifetime token stops with the clock like a sign-in's.
    clock.advance(30 * DAY_MS);
    const expired = await t.request('GET', '/auth/session', { token: byDefault.body.secret });
    expect(expired.status).toBe(401);
  });

  it("gives the token of an admin's invitation for a linked account the sign-in lifetime too", async () => {
    const ray = await signedIn('ray');
    const local = await t.createUser({});
    const invitedToken = async (userId: string) => {
      const invited = await t.request('POST', `/admin/users/${userId}/invitations`, { body: {} });
      expect(invited.status).toBe(201);
      const redeemed = await t.request('POST', '/auth/invitations/redeem', {
        token: null,
        body: { secret: invited.body.secret },
      });
      expect(redeemed.status).toBe(201);
      return redeemed.body.token as { expiresAt: string | null };
    };
    expect((await invitedToken(ray.userId)).expiresAt).toBe(inDays(30));
    expect((await invitedToken(local.id)).expiresAt).toBeNull();
  });

  it('blocks a linked person: tokens stop, sign-ins are refused and audited, also once the user is deleted', async () => {
    const max = await signedIn('max');
    const blocked = await t.request('POST', '/admin/sso/blocks', { body: { userId: max.userId } });
    expect(blocked.status).toBe(201);
    expect(blocked.body).toMatchObject({ issuer: signOn.idp.issuer, subject: 'max', name: 'max' });
    expect((await t.request('GET', '/auth/session', { token: max.token })).status).toBe(401);
    const again = await t.request('POST', '/admin/sso/blocks', { body: { userId: max.userId } });
    expect(again.status).toBe(409);

    const refused = await signIn('max');
    expect(refused.status).toBe(403);
    expect(refused.html).toContain('blocked your account');
    expect(codeOf(refused.html)).toBeNull();
    const audit = (await t.request('GET', '/admin/audit?targetId=max')).body.events;
    expect(audit.map((e: { action: string }) => e.action).slice(0, 2)).toEqual([
      'sso.refused',
      'sso.blocked',
    ]);
    expect(audit[0].details.reason).toBe('blocked by an administrator');

    // Deleting the user alone used to last only until the next sign-in.
    expect((await t.request('DELETE', `/admin/users/${max.userId}`)).status).toBe(204);
    expect((await signIn('max')).status).toBe(403);
    const users = (await t.request('GET', '/admin/users')).body.users;
    expect(users.some((u: { name: string }) => u.name.startsWith('max'))).toBe(false);

    // Lifted: the person signs in again (a new account, since the old one is gone).
    expect((await t.request('DELETE', `/admin/sso/blocks/${blocked.body.id}`)).status).toBe(204);
    expect((await t.request('DELETE', `/admin/sso/blocks/${blocked.body.id}`)).status).toBe(404);
    expect((await signIn('max')).status).toBe(200);
  });

  it('withdraws the code a sign-in page still shows when the person is blocked, and no later invitation of theirs redeems', async () => {
    const pat = await signedIn('pat');
    // Pat signs in again: the page shows a fresh one-time code, valid sso.codeMinutes.
    const page = await signIn('pat');
    const code = codeOf(page.html);
    expect(code).toMatch(/^hbi_/);
    const blocked = await t.request('POST', '/admin/sso/blocks', { body: { userId: pat.userId } });
    expect(blocked.status).toBe(201);
    const redeem = (secret: string) =>
      t.request('POST', '/auth/invitations/redeem', { token: null, body: { secret } });
    const shown = await redeem(code!);
    expect([shown.status, shown.body.reason]).toEqual([410, 'revoked']);
    const [event] = (await t.request('GET', `/admin/audit?action=sso.blocked&targetId=pat`)).body
      .events;
    expect(event.details).toMatchObject({ revokedTokens: 1, revokedInvitations: 1 });

    // A code issued as the block was made (its sign-in checked the blocks just before) is
    // refused at redeem, and its preview says it was withdrawn.
    const user = await t.hub.identity.users.get(t.store(), pat.userId);
    const late = await createInvitesService({ identity: t.hub.identity, clock }).issue(
      t.store(),
      user,
      1,
      { tokenTtlDays: 30 },
    );
    const preview = await t.request('POST', '/auth/invitations/preview', {
      token: null,
      body: { secret: late.secret },
    });
    expect([preview.status, preview.body.reason]).toEqual([410, 'revoked']);
    expect((await redeem(late.secret)).status).toBe(410);
    // An admin's new invitation for the blocked person is refused, naming the block.
    const invited = await t.request('POST', `/admin/users/${pat.userId}/invitations`, { body: {} });
    expect(invited.status).toBe(409);
    expect(invited.body.error).toContain('blocked from signing in');
    const tokens = (await t.request('GET', `/admin/tokens?userId=${pat.userId}`)).body.tokens;
    expect(tokens.every((token: { revokedAt: string | null }) => token.revokedAt !== null)).toBe(
      true,
    );
  });

  it('blocks a person by subject before any sign-in, in this tenant only', async () => {
    const block = await t.request('POST', '/admin/sso/blocks', { body: { subject: 'ned' } });
    expect(block.status).toBe(201);
    expect(block.body).toMatchObject({ issuer: signOn.idp.issuer, subject: 'ned', name: '' });
    expect((await signIn('ned')).status).toBe(403);
    const listed = (await t.request('GET', '/admin/sso/blocks')).body.blocks;
    expect(listed.map((b: { subject: string }) => b.subject)).toContain('ned');
    // Another tenant's admins see no block of this one, and the person signs in there.
    const acmeAdmin = await t.createUser({ role: 'admin' }, 'acme');
    const acme = await t.request('GET', '/admin/sso/blocks', {
      token: acmeAdmin.token,
      tenant: 'acme',
    });
    expect(acme.body.blocks).toEqual([]);
    expect((await signIn('ned', 'acme')).status).toBe(200);
  });

  it('names what is wrong with a block request', async () => {
    const post = (body: unknown) => t.request('POST', '/admin/sso/blocks', { body });
    expect((await post({})).body.error).toBe('Request body: give userId or subject (exactly one)');
    expect((await post({ userId: t.adminId, subject: 'x' })).status).toBe(400);
    expect((await post({ userId: t.adminId, issuer: 'https://x' })).body.error).toBe(
      'issuer: only with subject',
    );
    const unlinked = await post({ userId: t.adminId });
    expect(unlinked.status).toBe(404);
    expect(unlinked.body.error).toBe('User not found or not linked to the identity provider.');
  });
});
