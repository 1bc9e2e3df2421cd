/**
 * The tokens and invitations pages over HTTP, on SQLite and PostgreSQL: a token created for a user
 * named in the form (or the user of the page) with its secret shown once and its expiry, then
 * revoked (kept, refused) and deleted; an invitation created with access picked by name and its
 * `/join` link shown once, a new one for an existing user, one revoked; every refused field with
 * the API's message beside it and what was typed kept.
 */
import { describe, expect, it } from 'vitest';
import { consoleDrivers } from '../helpers/drivers.ts';
import { uniqueName, useTestHub } from '../helpers/hub.ts';
import { picked, signedIn, submit, submitRefused, textOf } from './forms.ts';

describe.each(consoleDrivers())('console tokens and invitations on %s', (kind) => {
  const t = useTestHub(kind);
  const tokensOf = async (userId: string) =>
    (await t.request('GET', `/admin/tokens?userId=${userId}`)).body.tokens as {
      id: string;
      name: string;
      revokedAt: string | null;
      expiresAt: string | null;
    }[];

  it('creates a token for a user named in the form, shows it once with its expiry, revokes and deletes it', async () => {
    const name = uniqueName('holder');
    const user = await t.createUser({ name });
    const browser = await signedIn(t);
    const made = await submit(browser, '/console/tokens', {
      intent: 'create',
      user: name.toUpperCase(),
      name: 'laptop',
      expiresInDays: '30',
    });
    expect(made.status).toBe(200);
    const secret = /<code id="secret"[^>]*>(hbk_[^<]+)<\/code>/.exec(made.html)![1]!;
    expect(made.html).toContain('data-copy="Copy the token"');
    const laptop = (await tokensOf(user.id)).find((token) => token.name === 'laptop')!;
    const days = (Date.parse(laptop.expiresAt!) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);
    expect(textOf(made.html)).toContain(`until ${laptop.expiresAt!.slice(0, 10)}`);

    const list = await browser.get(`/console/tokens?user=${user.id}`);
    expect(list.html).not.toContain(secret);
    const row = textOf(
      new RegExp(`<tr data-token="${laptop.id}">[\\s\\S]*?</tr>`).exec(list.html)![0],
    );
    expect(row).toContain('laptop');
    expect(row).toContain(name);
    expect(row).toContain('active');

    const path = `/console/tokens?user=${user.id}`;
    const revoked = await submit(browser, path, { intent: 'revoke', tokenId: laptop.id });
    expect(revoked.location).toBe(`/console/tokens?user=${user.id}&done=revoked`);
    expect(
      (await tokensOf(user.id)).find((token) => token.id === laptop.id)!.revokedAt,
    ).not.toBeNull();
    expect((await t.request('GET', '/auth/session', { token: secret })).status).toBe(401);
    const shown = await browser.get(`${path}&done=revoked`);
    expect(textOf(shown.html)).toContain('Token revoked.');

    const deleted = await submit(browser, path, { intent: 'delete', tokenId: laptop.id });
    expect(deleted.location).toBe(`/console/tokens?user=${user.id}&done=deleted`);
    expect((await tokensOf(user.id)).map((token) => token.id)).not.toContain(laptop.id);
  });

  it("creates a token on a user's token page without naming them, with the hub's default expiry", async () => {
    const user = await t.createUser({});
    const browser = await signedIn(t);
    const made = await submit(browser, `/console/tokens?user=${user.id}`, {
      intent: 'create',
      user: user.id,
      name: 'ci',
    });
    expect(made.status).toBe(200);
    expect((await tokensOf(user.id)).find((token) => token.name === 'ci')!.expiresAt).toBeNull();
  });

  it("pages a user's tokens fifty at a time with the API's cursor", async () => {
    const user = await t.createUser({});
    for (let i = 0; i < 54; i++)
      await t.request('POST', `/admin/users/${user.id}/tokens`, { body: { name: `t${i}` } });
    const browser = await signedIn(t);
    const first = await browser.get(`/console/tokens?user=${user.id}`);
    expect(first.html.match(/<tr data-token=/g)).toHaveLength(50);
    const older = /<a href="([^"]*cursor=[^"]+)">Older tokens<\/a>/.exec(first.html)![1]!;
    const second = await browser.get(older.replaceAll('&amp;', '&'));
    expect(second.html.match(/<tr data-token=/g)).toHaveLength(5);
    expect(second.html).toContain('>Newest tokens</a>');
    expect(second.html).not.toContain('Older tokens');
  });

  it('keeps what was typed and shows the message beside the token field it names', async () => {
    const name = uniqueName('typed');
    await t.createUser({ name });
    const browser = await signedIn(t);
    const days = await submitRefused(browser, '/console/tokens', {
      intent: 'create',
      user: name,
      name: 'phone',
      expiresInDays: '0',
    });
    expect(days.error('expiresInDays')).toBe('expiresInDays: must be at least 1 day');
    expect([days.value('user'), days.value('name')]).toEqual([name, 'phone']);
    const nobody = await submitRefused(browser, '/console/tokens', {
      intent: 'create',
      user: 'nobody-at-all',
      name: 'x',
    });
    expect(nobody.error('user')).toBe('user: No user is named “nobody-at-all”.');
    const blank = await submitRefused(browser, '/console/tokens', {
      intent: 'create',
      user: name,
      name: ' ',
    });
    expect(blank.error('name')).toMatch(/^name: /);
  });

  it('creates an invitation with access picked by name and shows its /join link once', async () => {
    const alpha = (await t.request('POST', '/collections', { body: { name: 'Invited' } })).body.id;
    const browser = await signedIn(t);
    const name = uniqueName('guest');
    const made = await submit(browser, '/console/invitations', {
      intent: 'create',
      name,
      role: 'user',
      ...picked('collectionAccess', alpha),
      expiresInHours: '48',
    });
    expect(made.status).toBe(200);
    const link = /<code id="link"[^>]*>([^<]+)<\/code>/
      .exec(made.html)![1]!
      .replaceAll('&amp;', '&');
    expect(link).toMatch(/\/join\?.*#/);
    expect(made.html).toContain('data-copy="Copy the join link"');
    const user = (await t.request('GET', '/admin/users')).body.users.find(
      (candidate: { name: string }) => candidate.name === name,
    );
    expect(user.collectionAccess).toEqual([alpha]);
    const secret = decodeURIComponent(link.slice(link.indexOf('#') + 1)).replace(
      /^.*?(hbi_)/,
      '$1',
    );
    const preview = await t.request('POST', '/auth/invitations/preview', {
      token: null,
      body: { secret },
    });
    expect(preview.body.user.name).toBe(name);

    const list = await browser.get('/console/invitations');
    const invitation = (await t.request('GET', '/admin/invitations')).body.invitations.find(
      (entry: { userId: string }) => entry.userId === user.id,
    );
    expect(textOf(list.html)).toContain(name);
    const revoked = await submit(browser, '/console/invitations', {
      intent: 'revoke',
      invitationId: invitation.id,
    });
    expect(revoked.location).toBe('/console/invitations?done=revoked');
    const after = (await t.request('GET', '/admin/invitations')).body.invitations.find(
      (entry: { id: string }) => entry.id === invitation.id,
    );
    expect(after.status).toBe('revoked');
  });

  it('invites an existing user again, and puts refusals beside the invitation fields', async () => {
    const name = uniqueName('again');
    await t.createUser({ name });
    const browser = await signedIn(t);
    const again = await submit(browser, '/console/invitations', { intent: 'reissue', user: name });
    expect(again.status).toBe(200);
    expect(again.html).toMatch(/<code id="link"[^>]*>[^<]*\/join\?/);

    const hours = await submitRefused(browser, '/console/invitations', {
      intent: 'reissue',
      user: name,
      hours: '99999',
    });
    expect(hours.error('hours')).toBe('expiresInHours: must be at most 8760 hours');
    expect(hours.value('hours')).toBe('99999');

    const create = await submitRefused(browser, '/console/invitations', {
      intent: 'create',
      name: 'someone',
      role: 'user',
      expiresInHours: '0',
    });
    expect(create.error('expiresInHours')).toBe('expiresInHours: must be at least 1 hour');
    expect(create.value('name')).toBe('someone');
  });
});
