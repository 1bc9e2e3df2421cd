/**
 * The `/join` page in real headless Chromium, served over a real socket: the details render, the
 * deep link carries the code from the fragment, and no request the page makes contains the code.
 * Runs when HUB_TEST_CHROMIUM names a browser or `chromium` is on PATH; under CI=true a missing
 * browser fails the suite instead of skipping it.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { uniqueName } from '../helpers/hub.ts';
import { SCREENSHOTS, SKIP_BROWSER, useBrowserHub } from '../helpers/browser.ts';
import { joinLink } from '../../plugins/invites/link.ts';

describe.skipIf(SKIP_BROWSER)('the /join page in headless Chromium', () => {
  const web = useBrowserHub();
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

  it('renders the invitation, builds the deep link from the fragment and never sends the code', async () => {
    const created = await t.request('POST', '/admin/invited-users', {
      body: { name: uniqueName('Zoë'), role: 'user', collectionAccess: ['*'] },
    });
    const { user, invitation, secret } = created.body;
    const link = joinLink({
      baseUrl: web.base,
      user,
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

    const text = await page.locator('main').innerText();
    expect(text).toContain("You're invited to Workspace <Hub>");
    expect(text).toContain(user.name);
    expect(text).toContain('user');
    expect(text).toContain('Collections: all');
    expect(await page.locator('#code-status').innerText()).toContain('works once');
    expect(errors).toEqual([]);

    // The one request is the page itself, and neither its URL nor its headers carry the code.
    expect(requests).toHaveLength(1);
    for (const request of requests) {
      expect(request.url).not.toContain(secret);
      expect(JSON.stringify(request.headers)).not.toContain(secret);
    }
    await page.screenshot({ path: join(SCREENSHOTS, 'join-page.png'), fullPage: true });
    await page.close();
  }, 60_000);

  it("shows the expiry in the reader's time zone, naming the zone", async () => {
    const context = await web.browser.newContext({ timezoneId: 'Asia/Tokyo', locale: 'en-US' });
    try {
      const page = await context.newPage();
      await page.goto(
        `${web.base}/join?${new URLSearchParams({ url: web.base, name: 'Ann', role: 'user', exp: '2999-01-01T00:00:00.000Z' })}`,
      );
      await expect
        .poll(() => page.locator('#exp').innerText())
        .toBe('Jan 1, 2999, 9:00:00 AM GMT+9');
    } finally {
      await context.close();
    }
  });

  it('keeps the button disabled and explains when the code is missing', async () => {
    const link = `${web.base}/join?${new URLSearchParams({ url: web.base, name: 'Ann', role: 'admin', exp: '2999-01-01T00:00:00.000Z' })}`;
    const { page } = await open(link);
    await expect
      .poll(() => page.locator('#code-status').innerText())
      .toContain('missing its invitation code');
    expect(await page.locator('#open').getAttribute('href')).toBeNull();
    await page.close();
  }, 60_000);

  it('shows a friendly page for a malformed link', async () => {
    const { page } = await open(`${web.base}/join?name=%3Cscript%3Ealert(1)%3C%2Fscript%3E`);
    expect(await page.locator('h1').innerText()).toBe('Invalid invite link');
    await page.screenshot({ path: join(SCREENSHOTS, 'join-page-invalid.png') });
    await page.close();
  }, 60_000);
});
