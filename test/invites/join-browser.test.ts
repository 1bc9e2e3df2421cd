/**
 * The `/join` page in real headless Chromium, served over a real socket: the page shows what the
 * hub's preview answers (never the query's claims), warns when the link points at another hub,
 * says when a code is used, expired, withdrawn, unknown or missing (and what to do, not "paste the
 * link"), styles its links like its button in light and dark, fits 390 px, the deep link carries
 * the code from the fragment, and the code travels only in the body of the one same-origin
 * preview request.
 * Runs when HUB_TEST_CHROMIUM names a browser or `chromium` is on PATH; under CI=true a missing
 * browser fails the suite instead of skipping it.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../kernel/clock.ts';
import { uniqueName } from '../helpers/hub.ts';
import { SCREENSHOTS, SKIP_BROWSER, useBrowserHub } from '../helpers/browser.ts';
import { joinLink } from '../../plugins/invites/link.ts';
import { DESKTOP_APP_URL } from '../../kernel/http/html.ts';

describe.skipIf(SKIP_BROWSER)('the /join page in headless Chromium', () => {
  // A clock the tests move, so an invitation can expire while the page is open.
  const clock = createManualClock(new Date());
  const web = useBrowserHub({ clock, config: { multitenancy: { enabled: true } } });
  const { t } = web;

  async function open(link: string, viewport = { width: 390, height: 844 }) {
    const page = await web.browser.newPage({ viewport });
    const requests: { url: string; headers: Record<string, string> }[] = [];
    page.on('request', (request) =>
      requests.push({ url: request.url(), headers: request.headers() }),
    );
    const errors: string[] = [];
    page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
    await page.goto(link);
    return { page, requests, errors };
  }

  async function invite(name: string, body: Record<string, unknown> = {}) {
    const created = await t.request('POST', '/admin/invited-users', {
      body: { name: uniqueName(name), role: 'user', collectionAccess: ['*'], ...body },
    });
    expect(created.status).toBe(201);
    return created.body as {
      user: { name: string; role: string } & Record<string, unknown>;
      invitation: { expiresAt: string };
      secret: string;
    };
  }

  it("shows the hub's answer for a real invitation, builds the deep link from the fragment and sends the code only in the preview body", async () => {
    const { user, invitation, secret } = await invite('Zoë', {
      liveServerAccess: ['*'],
      livePageAccess: [],
    });
    const link = joinLink({
      baseUrl: web.base,
      user: user as never,
      expiresAt: invitation.expiresAt,
      secret,
      hubName: 'Workspace <Hub>',
    });
    const { page, requests, errors } = await open(link);

    await expect.poll(() => page.locator('#open').getAttribute('href')).toMatch(/^harborclient:/);
    const href = (await page.locator('#open').getAttribute('href'))!;
    const deep = new URL(href);
    expect(`${deep.protocol}//${deep.host}${deep.pathname}`).toBe('harborclient://team-hub/join');
    expect(deep.searchParams.get('code')).toBe(secret);
    expect(deep.searchParams.get('name')).toBe(user.name);
    expect(deep.searchParams.get('url')).toBe(web.base);
    expect(deep.searchParams.get('exp')).toBe(invitation.expiresAt);
    expect(deep.searchParams.get('hub')).toBe('Workspace <Hub>');

    const text = await page.locator('main').innerText();
    expect(await page.locator('#open').isVisible()).toBe(true);
    expect(await page.locator('#f-name').innerText()).toBe(user.name);
    expect(await page.locator('#f-role').innerText()).toBe('user');
    expect(await page.locator('#f-access').innerText()).toBe(
      'Collections: all · Environments: none · Snippets: none · Live servers: all · Live pages: none · LLM: disabled',
    );
    expect(await page.locator('#f-hub').innerText()).toBe(web.base);
    expect(await page.locator('#exp').getAttribute('datetime')).toBe(invitation.expiresAt);
    expect(text).toContain('The hub confirmed this invitation');
    expect(text).not.toContain('Warning');
    expect(
      await page.getByRole('link', { name: 'HarborClient desktop app' }).getAttribute('href'),
    ).toBe(DESKTOP_APP_URL);
    expect(errors).toEqual([]);

    // The page, then its preview: same origin, the code only in the POST body.
    expect(requests.map((r) => r.url)).toEqual([
      link.split('#')[0],
      `${web.base}/auth/invitations/preview`,
    ]);
    for (const request of requests) {
      expect(request.url).not.toContain(secret);
      expect(JSON.stringify(request.headers)).not.toContain(secret);
    }
    await page.screenshot({ path: join(SCREENSHOTS, 'join-page.png'), fullPage: true });
    await page.close();
  }, 60_000);

  it("asks the link's tenant: shows that tenant's invitation and name, and the deep link keeps the tenant", async () => {
    const tenant = uniqueName('team')
      .replace(/[^A-Za-z0-9_-]/g, '')
      .slice(0, 60);
    await t.hub.identity.tenants.create(tenant, 'Team Two');
    const created = await t.request('POST', '/admin/invited-users', {
      token: (await t.createUser({ role: 'admin' }, tenant)).token,
      tenant,
      body: { name: uniqueName('Tenant user'), role: 'user' },
    });
    expect(created.status).toBe(201);
    const link = created.body.link
      .replace(/^http:\/\/[^/]+/, web.base)
      .replace(/url=[^&]+/, `url=${encodeURIComponent(web.base)}`);
    expect(new URL(link).searchParams.get('tenant')).toBe(tenant);
    const { page, requests, errors } = await open(link);
    await expect.poll(() => page.locator('#f-name').innerText()).toBe(created.body.user.name);
    expect(await page.locator('h1').innerText()).toBe("You're invited to Team Two");
    expect(await page.locator('main').innerText()).toContain(
      `for the tenant ${tenant} of this hub`,
    );
    const deep = new URL((await page.locator('#open').getAttribute('href'))!);
    expect(deep.searchParams.get('tenant')).toBe(tenant);
    expect(requests[1]!.headers['x-hub-tenant']).toBe(tenant);
    expect(errors).toEqual([]);
    await page.screenshot({ path: join(SCREENSHOTS, 'join-page-tenant.png'), fullPage: true });
    await page.close();

    // A tenant this hub does not have is told apart from an unknown code by nothing: the page
    // names no tenant, and the hub does not know the code there.
    const unknown = new URL(link);
    unknown.searchParams.set('tenant', 'no-such-tenant');
    const other = await open(unknown.href);
    await expect
      .poll(() => other.page.locator('#state').innerText())
      .toContain('This hub does not know the code in this link');
    expect(await other.page.locator('h1').innerText()).toBe('This invitation code is unknown');
    expect(await other.page.locator('#open').isVisible()).toBe(false);
    await other.page.close();
  }, 60_000);

  it('shows the real user and role for a crafted link, warns that its url is another hub, and offers no button', async () => {
    const { user, secret } = await invite('Real');
    const crafted = `${web.base}/join?${new URLSearchParams({
      url: 'http://evil.example',
      name: 'Mallory',
      role: 'admin',
      exp: '2999-01-01T00:00:00.000Z',
      hub: 'Fake Hub',
      access: 'Full access (admin) · LLM: enabled',
    })}#code=${secret}`;
    const { page, errors } = await open(crafted);
    await expect.poll(() => page.locator('#f-role').innerText()).toBe('user');
    expect(await page.locator('#f-name').innerText()).toBe(user.name);
    const warning = await page.locator('#origin-warning').innerText();
    expect(warning).toContain('http://evil.example');
    expect(warning).toContain(web.base);
    const text = await page.locator('main').innerText();
    expect(text).not.toContain('Mallory');
    expect(text).not.toMatch(/\badmin\b/);
    expect(text).not.toContain('Fake Hub');
    expect(text).not.toContain('2999');
    expect(await page.locator('#open').getAttribute('href')).toBeNull();
    expect(await page.locator('#open').isVisible()).toBe(false);
    expect(errors).toEqual([]);
    await page.screenshot({ path: join(SCREENSHOTS, 'join-page-crafted.png'), fullPage: true });
    await page.close();
  }, 60_000);

  /** What a dead link's page shows: its heading, its message, and whether anything invites a retry. */
  async function deadPage(link: string) {
    const { page, errors } = await open(link);
    await expect.poll(() => page.locator('#state').getAttribute('class')).toBe('note warn');
    const shown = {
      title: await page.locator('h1').innerText(),
      state: await page.locator('#state').innerText(),
      documentTitle: await page.title(),
      button: await page.locator('#open').isVisible(),
      facts: await page.locator('#facts').isVisible(),
      help: await page.locator('#help').isVisible(),
      text: await page.locator('main').innerText(),
    };
    // Chromium reports the preview's 404 or 410 answer itself; no script error besides.
    expect(errors.filter((error) => !error.startsWith('Failed to load resource'))).toEqual([]);
    return { page, shown };
  }

  it('says when the code was already used, has expired, was withdrawn or is unknown, and what to do, without the invitation or the advice to paste the link', async () => {
    const linkOf = (created: Awaited<ReturnType<typeof invite>>, secret = created.secret) =>
      joinLink({
        baseUrl: web.base,
        user: created.user as never,
        expiresAt: created.invitation.expiresAt,
        secret,
      });
    const used = await invite('Used');
    const redeemed = await t.request('POST', '/auth/invitations/redeem', {
      token: null,
      body: { secret: used.secret },
    });
    expect(redeemed.status).toBe(201);
    const revoked = await invite('Withdrawn');
    const listed = await t.request('GET', '/admin/invitations');
    const row = listed.body.invitations.find(
      (entry: { userId: string }) => entry.userId === (revoked.user as { id?: string }).id,
    );
    expect((await t.request('DELETE', `/admin/invitations/${row.id}`)).status).toBe(204);
    const expired = await invite('Late', { expiresInHours: 1 });
    clock.advance(2 * 60 * 60 * 1000);

    const cases = [
      [
        linkOf(used),
        'This invitation was already used',
        'Each invitation works once, and this one has been accepted in HarborClient. If that was not you, or you need it on another device, ask the hub administrator for a new invite link.',
        'join-page-used.png',
      ],
      [
        linkOf(expired),
        'This invitation has expired',
        'It was not accepted in time. Ask the hub administrator for a new invite link.',
        'join-page-expired.png',
      ],
      [
        linkOf(revoked),
        'This invitation was withdrawn',
        'The hub administrator revoked it. If you still need access, ask them for a new invite link.',
        'join-page-revoked.png',
      ],
      [
        linkOf(used, 'hbi_notAnIssuedCode123456'),
        'This invitation code is unknown',
        'This hub does not know the code in this link. Check that you opened the whole link (with everything after #code=), or ask the hub administrator for a new one.',
        'join-page-unknown.png',
      ],
      [
        linkOf(used).replace(/#code=.*/, ''),
        'This invite link is incomplete',
        'The link is missing its invitation code (the part after #code=). Open the whole link from the message you received, or ask the hub administrator to send it again.',
        'join-page-no-code.png',
      ],
    ] as const;
    for (const [link, title, state, screenshot] of cases) {
      const { page, shown } = await deadPage(link);
      expect(shown).toMatchObject({
        title,
        state,
        documentTitle: title,
        button: false,
        facts: false,
        help: false,
      });
      expect(shown.text).not.toContain("You're invited");
      expect(shown.text).not.toContain('paste');
      expect(shown.text).not.toContain(used.user.name);
      expect(await page.locator('#open').getAttribute('href')).toBeNull();
      await page.screenshot({ path: join(SCREENSHOTS, screenshot), fullPage: true });
      await page.close();
    }
  }, 60_000);

  it('styles the desktop-app link in the accent colour of the button, and fits 390 px without scrolling sideways', async () => {
    const created = await invite('Styled');
    const link = joinLink({
      baseUrl: web.base,
      user: created.user as never,
      expiresAt: created.invitation.expiresAt,
      secret: created.secret,
    });
    for (const colorScheme of ['light', 'dark'] as const) {
      const context = await web.browser.newContext({
        viewport: { width: 390, height: 844 },
        colorScheme,
      });
      const page = await context.newPage();
      await page.goto(link);
      await expect.poll(() => page.locator('#open').isVisible()).toBe(true);
      const app = page.getByRole('link', { name: 'HarborClient desktop app' });
      const style = await app.evaluate((element) => {
        const css = getComputedStyle(element);
        return { color: css.color, weight: css.fontWeight };
      });
      const button = await page
        .locator('#open')
        .evaluate((element) => getComputedStyle(element).backgroundColor);
      expect([colorScheme, style]).toEqual([colorScheme, { color: button, weight: '600' }]);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width).toBeLessThanOrEqual(390);
      await page.screenshot({
        path: join(SCREENSHOTS, `join-page-${colorScheme}.png`),
        fullPage: true,
      });
      await context.close();
    }
  }, 60_000);

  it("shows the hub's expiry in the reader's time zone, naming the zone", async () => {
    const { user, invitation, secret } = await invite('Tokyo');
    const context = await web.browser.newContext({ timezoneId: 'Asia/Tokyo', locale: 'en-US' });
    try {
      const page = await context.newPage();
      await page.goto(
        joinLink({
          baseUrl: web.base,
          user: user as never,
          expiresAt: '2999-01-01T00:00:00.000Z',
          secret,
        }),
      );
      const expected = new Date(invitation.expiresAt).toLocaleString('en-US', {
        timeZone: 'Asia/Tokyo',
        dateStyle: 'medium',
        timeStyle: 'long',
      });
      await expect.poll(() => page.locator('#exp').innerText()).toBe(expected);
      expect(expected).toContain('GMT+9');
    } finally {
      await context.close();
    }
  }, 60_000);

  it('shows a friendly page for a malformed link', async () => {
    const { page } = await open(`${web.base}/join?name=%3Cscript%3Ealert(1)%3C%2Fscript%3E`);
    expect(await page.locator('h1').innerText()).toBe('Invalid invite link');
    await page.screenshot({ path: join(SCREENSHOTS, 'join-page-invalid.png') });
    await page.close();
  }, 60_000);
});
