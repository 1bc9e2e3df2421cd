/** Invitations over HTTP: admin API, public preview and redeem, statuses and lifetimes. */
import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../kernel/clock.ts';
import { sha256Hex } from '../../kernel/identity/secrets.ts';
import { usersTable } from '../../kernel/identity/tables.ts';
import { DEFAULT_TENANT_ID } from '../../kernel/identity/tenants.ts';
import { invitationsTable } from '../../plugins/invites/tables.ts';
import { httpDrivers } from '../helpers/drivers.ts';
import { NO_ACCESS } from '../helpers/fixtures.ts';
import { uniqueName, useTestHub } from '../helpers/hub.ts';

const HOUR = 3_600_000;
const INVALID = { error: 'Invalid or expired invitation.' };

describe.each(httpDrivers())('invitations on %s', (kind) => {
  const clock = createManualClock(new Date('2026-03-01T12:00:00.000Z'));
  const t = useTestHub(kind, {
    clock,
    config: {
      invites: { expiresInHours: 48 },
      server: { host: '0.0.0.0', port: 9555, publicUrl: 'https://hub.example.com/team/' },
    },
  });

  const invite = async (extra: Record<string, unknown> = {}) => {
    const res = await t.request('POST', '/admin/invited-users', {
      body: { name: uniqueName('invitee'), collectionAccess: ['*'], ...extra },
    });
    expect(res.status, res.text).toBe(201);
    return res.body as { user: any; invitation: any; secret: string };
  };
  const pub = (path: string, body: unknown) => t.request('POST', path, { token: null, body });

  it('creates an invited user without any token and stores only the hash of the secret', async () => {
    const { user, invitation, secret } = await invite();
    expect(secret).toMatch(/^hbi_[A-Za-z0-9_-]{43}$/);
    expect(invitation).toEqual({
      id: expect.any(String),
      userId: user.id,
      codePrefix: secret.slice(0, 12),
      expiresAt: '2026-03-03T12:00:00.000Z',
      redeemedAt: null,
      revokedAt: null,
      createdAt: clock.iso(),
      status: 'pending',
    });
    const row = await t.hub
      .driver()
      .forTenant(DEFAULT_TENANT_ID)
      .table(invitationsTable)
      .get(invitation.id);
    expect(row!.codeHash).toBe(await sha256Hex(secret));
    expect(JSON.stringify(row)).not.toContain(secret);
    expect(
      (await t.request('GET', '/admin/tokens')).body.tokens.some(
        (token: any) => token.userId === user.id,
      ),
    ).toBe(false);
  });

  it('answers with the join link on server.publicUrl, as the CLI prints it', async () => {
    const { user, invitation, secret, link } = (await invite({ livePageAccess: ['*'] })) as {
      user: any;
      invitation: any;
      secret: string;
      link: string;
    };
    const url = new URL(link);
    expect(`${url.origin}${url.pathname}`).toBe('https://hub.example.com/team/join');
    expect(url.searchParams.get('url')).toBe('https://hub.example.com/team');
    expect(url.searchParams.get('name')).toBe(user.name);
    expect(url.searchParams.get('exp')).toBe(invitation.expiresAt);
    expect(url.hash).toBe(`#code=${secret}`);
    expect(url.searchParams.get('access')).toBe(
      'Collections: all · Environments: none · Snippets: none · Live servers: none · Live pages: all · LLM: disabled',
    );
    const reissued = await t.request('POST', `/admin/users/${user.id}/invitations`, { body: {} });
    expect(reissued.status).toBe(201);
    expect(reissued.body.link).toMatch(
      /^https:\/\/hub\.example\.com\/team\/join\?url=https%3A%2F%2Fhub\.example\.com%2Fteam&/,
    );
  });

  it('previews without using the invitation up, then redeems it once for a working hbk_ token', async () => {
    const { user, secret } = await invite({ llmAccess: true });
    const preview = await pub('/auth/invitations/preview', { secret: ` ${secret} ` });
    expect(preview.status).toBe(200);
    expect(preview.body).toEqual({
      user: {
        name: user.name,
        role: 'user',
        ...NO_ACCESS,
        collectionAccess: ['*'],
        llmAccess: true,
      },
      expiresAt: '2026-03-03T12:00:00.000Z',
      hubName: 'Workspace Hub',
    });
    const redeemed = await pub('/auth/invitations/redeem', { secret, tokenName: 'laptop' });
    expect(redeemed.status).toBe(201);
    expect(redeemed.body.secret).toMatch(/^hbk_/);
    expect(redeemed.body.token).toMatchObject({ userId: user.id, name: 'laptop', revokedAt: null });
    const session = await t.request('GET', '/auth/session', { token: redeemed.body.secret });
    expect(session.body.user.id).toBe(user.id);

    expect(await pub('/auth/invitations/redeem', { secret })).toMatchObject({
      status: 410,
      body: INVALID,
    });
    expect(await pub('/auth/invitations/preview', { secret })).toMatchObject({
      status: 410,
      body: { ...INVALID, reason: 'redeemed' },
    });
  });

  it('names the token after the user when no tokenName is given', async () => {
    const { user, secret } = await invite();
    expect((await pub('/auth/invitations/redeem', { secret })).body.token.name).toBe(user.name);
  });

  it('answers an unknown secret with 404 and a malformed one with 400', async () => {
    expect(
      await pub('/auth/invitations/preview', { secret: `hbi_${'A'.repeat(43)}` }),
    ).toMatchObject({ status: 404, body: INVALID });
    for (const secret of ['hbk_abcdefghijklmnop', 'hbi_short', '']) {
      const res = await pub('/auth/invitations/redeem', { secret });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/^secret: /);
    }
    expect(
      (await pub('/auth/invitations/redeem', { secret: `hbi_${'A'.repeat(43)}`, tokenName: ' ' }))
        .body,
    ).toEqual({ error: 'tokenName: must not be empty', code: 'validation_failed' });
  });

  it('refuses a tokenName with control or bidi-override characters with 400 naming tokenName, and keeps the invitation usable', async () => {
    const { user, secret } = await invite();
    const names = [
      'a\u0001b',
      'tab\there',
      'del\u007f',
      'line\nbreak',
      'csi\u009b2J',
      'rlo\u202egnp',
    ];
    for (const tokenName of names) {
      const res = await pub('/auth/invitations/redeem', { secret, tokenName });
      expect(res.status, JSON.stringify(tokenName)).toBe(400);
      expect(res.body.error).toBe(
        'tokenName: must not contain control or bidirectional-override characters',
      );
    }
    const long = await pub('/auth/invitations/redeem', { secret, tokenName: 'x'.repeat(256) });
    expect(long.body).toEqual({
      error: 'tokenName: must be at most 255 characters',
      code: 'validation_failed',
    });
    const ok = await pub('/auth/invitations/redeem', {
      secret,
      tokenName: `  ${'\u{1F600}'.repeat(255)}  `,
    });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.token).toMatchObject({ userId: user.id, name: '\u{1F600}'.repeat(255) });
  });

  it('lets exactly one of two concurrent redeems of one secret succeed', async () => {
    const { user, secret } = await invite();
    const results = await Promise.all([
      pub('/auth/invitations/redeem', { secret }),
      pub('/auth/invitations/redeem', { secret }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 410]);
    const tokens = (await t.request('GET', '/admin/tokens')).body.tokens.filter(
      (token: any) => token.userId === user.id,
    );
    expect(tokens).toHaveLength(1);
  });

  it('expires invitations after their lifetime, per request or from the config default', async () => {
    const short = await invite({ expiresInHours: 1 });
    expect(short.invitation.expiresAt).toBe(new Date(clock.now().getTime() + HOUR).toISOString());
    const long = await invite();
    clock.advance(HOUR);
    expect(await pub('/auth/invitations/preview', { secret: short.secret })).toMatchObject({
      status: 410,
      body: { ...INVALID, reason: 'expired' },
    });
    expect((await pub('/auth/invitations/preview', { secret: long.secret })).status).toBe(200);
    const listed = (await t.request('GET', '/admin/invitations')).body.invitations;
    expect(listed.find((i: any) => i.id === short.invitation.id).status).toBe('expired');
    expect((await t.request('DELETE', `/admin/invitations/${short.invitation.id}`)).status).toBe(
      404,
    );
  });

  it('revokes a pending invitation once, and lists every status newest first', async () => {
    const revoked = await invite();
    const redeemed = await invite();
    await pub('/auth/invitations/redeem', { secret: redeemed.secret });
    expect((await t.request('DELETE', `/admin/invitations/${revoked.invitation.id}`)).status).toBe(
      204,
    );
    expect(await pub('/auth/invitations/redeem', { secret: revoked.secret })).toMatchObject({
      status: 410,
      body: { ...INVALID, reason: 'revoked' },
    });
    expect(await t.request('DELETE', `/admin/invitations/${revoked.invitation.id}`)).toMatchObject({
      status: 404,
      body: { error: 'Invitation not found or not revocable.' },
    });
    expect((await t.request('DELETE', `/admin/invitations/${redeemed.invitation.id}`)).status).toBe(
      404,
    );
    clock.advance(1);
    const pending = await invite();
    const { invitations } = (await t.request('GET', '/admin/invitations')).body;
    expect(invitations[0].id).toBe(pending.invitation.id);
    const status = (id: string) => invitations.find((i: any) => i.id === id).status;
    expect([
      status(pending.invitation.id),
      status(revoked.invitation.id),
      status(redeemed.invitation.id),
    ]).toEqual(['pending', 'revoked', 'redeemed']);
  });

  it('re-issues for an existing user, refusing unknown users and the system account', async () => {
    const user = await t.createUser({});
    const res = await t.request('POST', `/admin/users/${user.id}/invitations`, {
      body: { expiresInHours: 2 },
    });
    expect(res.status).toBe(201);
    expect(res.body.user.id).toBe(user.id);
    expect((await pub('/auth/invitations/preview', { secret: res.body.secret })).status).toBe(200);
    expect(
      (await t.request('POST', `/admin/users/${user.id}/invitations`, { body: {} })).status,
    ).toBe(201);
    expect(
      await t.request('POST', '/admin/users/00000000-0000-4000-8000-000000000000/invitations', {
        body: {},
      }),
    ).toMatchObject({ status: 404, body: { error: 'User not found' } });
    const system = await t.hub
      .driver()
      .forTenant(DEFAULT_TENANT_ID)
      .table(usersTable)
      .findOne({ system: true });
    expect(
      (await t.request('POST', `/admin/users/${system!.id}/invitations`, { body: {} })).status,
    ).toBe(403);
  });

  it('refuses bad admin bodies with a 400 naming the field, and user-role callers with 403', async () => {
    expect(
      (
        await t.request('POST', '/admin/invited-users', {
          body: { name: uniqueName(), expiresInHours: 0 },
        })
      ).body.error,
    ).toMatch(/^expiresInHours: /);
    expect(
      (
        await t.request('POST', '/admin/invited-users', {
          body: { name: uniqueName(), expiresInHours: 1.5 },
        })
      ).body.error,
    ).toMatch(/^expiresInHours: /);
    expect(
      (await t.request('POST', '/admin/invited-users', { body: { role: 'user' } })).body.error,
    ).toMatch(/^name: /);
    expect(
      (await t.request('POST', '/admin/invited-users', { body: { name: 'system' } })).status,
    ).toBe(400);
    const plain = await t.createUser({});
    expect((await t.request('GET', '/admin/invitations', { token: plain.token })).status).toBe(403);
  });

  it('deletes the invitations of a deleted user, so their secrets are unknown', async () => {
    const { user, secret, invitation } = await invite();
    expect((await t.request('DELETE', `/admin/users/${user.id}`)).status).toBe(204);
    expect(await pub('/auth/invitations/preview', { secret })).toMatchObject({
      status: 404,
      body: INVALID,
    });
    expect(
      (await t.request('GET', '/admin/invitations')).body.invitations.some(
        (i: any) => i.id === invitation.id,
      ),
    ).toBe(false);
  });
});
