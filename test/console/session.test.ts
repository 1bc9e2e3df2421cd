/**
 * The console's sessions, cookies, headers and form tokens over HTTP (no browser), on SQLite and
 * PostgreSQL: signing in with a token and out, what the database keeps, idle and absolute expiry,
 * a revoked token or a deleted user ending the session on its next page, a member on an
 * administrator's page, forms without the session's token or from another site, a refused form
 * showing the API's message beside its field, and sessions kept in their tenant.
 */
import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../kernel/clock.ts';
import { sha256Hex } from '../../kernel/identity/secrets.ts';
import { consoleSessionsTable } from '../../plugins/console/tables.ts';
import { consoleDrivers } from '../helpers/drivers.ts';
import { useTestHub } from '../helpers/hub.ts';
import { consoleClient, csrfOf, pluginsWithProbe } from './client.ts';

describe.each(consoleDrivers())('console sessions on %s', (kind) => {
  const clock = createManualClock(new Date());
  const t = useTestHub(kind, async () => ({ plugins: await pluginsWithProbe(), clock }));

  it('serves the sign-in page with a Token field, a Sign in button and the console headers', async () => {
    const page = await consoleClient(t).get('/console');
    expect(page.status).toBe(200);
    expect(page.html).toContain('<label for="f-token">Token</label>');
    expect(page.html).toMatch(/<button type="submit">Sign in<\/button>/);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
  });

  it('signs in with a token: an HttpOnly SameSite=Strict cookie whose value the database never holds', async () => {
    const browser = consoleClient(t);
    const signedIn = await browser.signIn(t.adminToken);
    expect(signedIn.status).toBe(303);
    expect(signedIn.location).toBe('/console');
    const line = signedIn.headers.getSetCookie().join('\n');
    expect(line).toMatch(
      /^hub_console=__default__\.[A-Za-z0-9_-]{43}; Max-Age=43200; Path=\/console; HttpOnly; SameSite=Strict$/,
    );
    const rows = await t.store().table(consoleSessionsTable).find();
    const row = rows.find((candidate) => candidate.id === sha256Hex(browser.cookie!))!;
    expect(row).toBeDefined();
    expect(JSON.stringify(rows)).not.toContain(browser.cookie!.split('.')[1]);
    expect(row.tokenHash).toBe(sha256Hex(t.adminToken));
    const overview = await browser.get('/console');
    expect(overview.status).toBe(200);
    expect(overview.html).toContain('<h1>Overview</h1>');
    expect(overview.html).toContain(`<dd id="database">${kind}</dd>`);
  });

  it('refuses a wrong token beside the Token field, with the 401 and no cookie', async () => {
    const browser = consoleClient(t);
    const page = await browser.signIn('hbk_not-a-token-of-this-hub');
    expect(page.status).toBe(401);
    expect(page.headers.getSetCookie()).toEqual([]);
    expect(page.html).toContain('aria-invalid="true"');
    expect(page.html).toMatch(
      /<p class="error" id="f-token-error">Unauthorized: this token does not work here/,
    );
  });

  it('audits sign-in and sign-out, and a signed-out cookie opens nothing', async () => {
    const user = await t.createUser({ role: 'admin' });
    const browser = consoleClient(t);
    await browser.signIn(user.token);
    const kept = browser.cookie!;
    const home = await browser.get('/console');
    const out = await browser.post('/console/sign-out', { csrf: csrfOf(home.html)! });
    expect(out.status).toBe(303);
    expect(out.location).toBe('/console?signed-out');
    expect(browser.cookie).toBeNull();
    const events = await t.request('GET', `/admin/audit?actorId=${user.id}`);
    const actions = events.body.events.map((event: { action: string }) => event.action);
    expect(actions).toEqual(expect.arrayContaining(['console.signed_in', 'console.signed_out']));
    const signedIn = events.body.events.find(
      (e: { action: string }) => e.action === 'console.signed_in',
    );
    expect(signedIn).toMatchObject({ ip: '203.0.113.1', details: { method: 'token' } });
    browser.cookie = kept;
    const again = await browser.get('/console');
    expect(again.html).toContain('<h1>Sign in</h1>');
    expect(await t.store().table(consoleSessionsTable).get(sha256Hex(kept))).toBeNull();
  });

  it('ends a session on its next page once its token is revoked, and once its user is deleted', async () => {
    const revoked = await t.createUser({ role: 'user' });
    const deleted = await t.createUser({ role: 'user' });
    const first = consoleClient(t);
    const second = consoleClient(t);
    await first.signIn(revoked.token);
    await second.signIn(deleted.token);
    expect((await first.get('/console')).html).toContain('<h1>Start</h1>');
    const [token] = (await t.request('GET', `/admin/tokens?userId=${revoked.id}`)).body.tokens;
    expect((await t.request('DELETE', `/admin/tokens/${token.id}`)).status).toBe(204);
    const ended = await first.get('/console');
    expect(ended.status).toBe(401);
    expect(ended.html).toContain('Your console session has ended');
    expect(first.cookie).toBeNull();
    expect((await t.request('DELETE', `/admin/users/${deleted.id}`)).status).toBe(204);
    const gone = await second.get('/console');
    expect(gone.html).toContain('<h1>Sign in</h1>');
    expect(
      await t
        .store()
        .table(consoleSessionsTable)
        .find({ where: { userId: deleted.id } }),
    ).toEqual([]);
  });

  it('ends a session after idleMinutes without a page, and after absoluteHours however busy', async () => {
    const idle = consoleClient(t);
    await idle.signIn(t.adminToken);
    clock.advance(29 * 60_000);
    expect((await idle.get('/console')).html).toContain('<h1>Overview</h1>');
    clock.advance(31 * 60_000);
    expect((await idle.get('/console')).html).toContain('<h1>Sign in</h1>');

    const busy = consoleClient(t);
    await busy.signIn(t.adminToken);
    for (let minutes = 0; minutes < 12 * 60; minutes += 20) {
      clock.advance(20 * 60_000);
      expect((await busy.get('/console')).html).toContain('<h1>Overview</h1>');
    }
    clock.advance(20 * 60_000);
    expect((await busy.get('/console')).html).toContain('<h1>Sign in</h1>');
  });

  it("gives a member the 403 page on an administrator's page, for a GET and a POST, and no link to it", async () => {
    const member = await t.createUser({ role: 'user' });
    const browser = consoleClient(t);
    await browser.signIn(member.token);
    const start = await browser.get('/console');
    expect(start.html).not.toContain('href="/console/probe"');
    const page = await browser.get('/console/probe');
    expect(page.status).toBe(403);
    expect(page.html).toContain('This page is for administrators of the hub.');
    const post = await browser.post('/console/probe', { csrf: csrfOf(start.html)! });
    expect(post.status).toBe(403);
    const admin = consoleClient(t);
    await admin.signIn(t.adminToken);
    const probe = await admin.get('/console/probe');
    expect(probe.status).toBe(200);
    expect(probe.html).toContain('<nav aria-label="Console">');
    expect(probe.html).toContain('<a href="/console/probe" aria-current="page">Probe</a>');
  });

  it("refuses a POST without the session's form token, with a wrong one, and from another site", async () => {
    const browser = consoleClient(t);
    await browser.signIn(t.adminToken);
    const csrf = csrfOf((await browser.get('/console/probe')).html)!;
    const without = await browser.post('/console/probe', {});
    expect(without.status).toBe(403);
    expect(without.html).toContain('did not carry this session&#39;s form token');
    expect((await browser.post('/console/probe', { csrf: 'f'.repeat(64) })).status).toBe(403);
    const elsewhere = await browser.post(
      '/console/probe',
      { csrf },
      { origin: 'https://evil.example' },
    );
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.html).toContain('it was not sent from a page of this hub');
    const noOrigin = await browser.post(
      '/console/sign-in',
      { token: t.adminToken },
      { origin: null },
    );
    expect(noOrigin.status).toBe(403);
    const sent = await browser.post('/console/probe', { csrf });
    expect(sent.status).toBe(303);
    expect(sent.location).toBe('/console/probe');
  });

  it("shows the API's message beside the field it names and keeps what was typed", async () => {
    const member = await t.createUser({ role: 'user' });
    const browser = consoleClient(t);
    await browser.signIn(member.token);
    const csrf = csrfOf((await browser.get('/console')).html)!;
    const profile = (initials: string) =>
      browser.post('/console', { csrf, intent: 'profile', initials, color: 'rose-600' });
    const refused = await profile('ABCDEFGHIJ');
    expect(refused.status).toBe(400);
    expect(refused.html).toMatch(
      /<input id="f-initials" name="initials" aria-invalid="true" aria-describedby="f-initials-hint f-initials-error" type="text" value="ABCDEFGHIJ"\/>/,
    );
    expect(refused.html).toMatch(/<p class="error" id="f-initials-error">initials: [^<]+<\/p>/);
    expect(refused.html).toContain('<option value="rose-600" selected="">Rose</option>');
    const saved = await profile('QX');
    expect(saved.status).toBe(303);
    const session = await t.request('GET', '/auth/session', { token: member.token });
    expect(session.body.user).toMatchObject({ avatarInitials: 'QX', avatarColor: 'rose-600' });
  });
});

describe('console sessions behind https and in tenants', () => {
  const t = useTestHub('sqlite', {
    config: { server: { publicUrl: 'https://hub.example' }, multitenancy: { enabled: true } },
  });

  it('uses a Secure __Host- cookie on path / and takes posts from the public origin', async () => {
    const browser = consoleClient(t, {
      origin: 'https://hub.example',
      cookieName: '__Host-hub_console',
    });
    const page = await browser.signIn(t.adminToken);
    expect(page.status).toBe(303);
    expect(page.headers.getSetCookie()[0]).toMatch(
      /^__Host-hub_console=[^;]+; Max-Age=43200; Path=\/; HttpOnly; Secure; SameSite=Strict$/,
    );
    expect((await browser.get('/console')).html).toContain('<h1>Overview</h1>');
  });

  it("keeps a tenant's sessions in the tenant and refuses another tenant's token there", async () => {
    await t.hub.identity.tenants.create('acme', 'Acme');
    const member = await t.createUser({ role: 'admin' }, 'acme');
    const browser = consoleClient(t, {
      origin: 'https://hub.example',
      cookieName: '__Host-hub_console',
    });
    const page = await browser.get('/console?tenant=acme');
    expect(page.html).toContain('<input type="hidden" name="tenant" value="acme"/>');
    expect((await browser.signIn(t.adminToken, 'acme')).status).toBe(401);
    expect((await browser.signIn(member.token, 'acme')).status).toBe(303);
    expect(browser.cookie).toMatch(/^acme\./);
    const row = await t.store('acme').table(consoleSessionsTable).get(sha256Hex(browser.cookie!));
    expect(row?.userId).toBe(member.id);
    expect(await t.store().table(consoleSessionsTable).get(sha256Hex(browser.cookie!))).toBeNull();
    expect((await browser.get('/console')).html).toContain('Acme · console');
  });
});
