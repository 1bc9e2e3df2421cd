/**
 * Into the console through single sign-on, in headless Chromium against a real OpenID Provider
 * (oidc-provider in process, its own login and consent pages): the console's sign-in page links
 * to the provider, the hub's result page offers "Open the console", and that opens a session as
 * the signed-in person — after which the desktop button's code is spent, as the page says. Signing
 * out revokes the token the console was given. Skipped locally without a browser; under CI=true
 * a missing browser fails the suite.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { seriousViolations } from '../helpers/axe.ts';
import { SCREENSHOTS, SKIP_BROWSER } from '../helpers/browser.ts';
import { useSsoBrowserHub } from '../helpers/sso-hub.ts';

describe.skipIf(SKIP_BROWSER)('the console through single sign-on in headless Chromium', () => {
  const served = useSsoBrowserHub([{ login: 'carol', groups: ['hub-users'] }], {
    allowedGroups: ['hub-users'],
    displayName: 'Corp ID',
  });
  const { t } = served;

  it("opens the console from the provider's sign-in, spending the desktop code, and revokes its token at sign-out", async () => {
    const base = served.base;
    const context = await served.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(String(error)));

    await page.goto(`${base}/console`);
    await page.getByRole('link', { name: 'Sign in with Corp ID' }).click();
    await page.waitForURL(`${base}/login`);
    await page.click('#start');
    await page.waitForURL(`${served.idp.issuer}/interaction/**`);
    await page.fill('input[name="login"]', 'carol');
    await page.fill('input[name="password"]', 'anything');
    await page.click('button[type="submit"]');
    await page.waitForSelector('text=/Authorize|Continue/i');
    await page.click('button[type="submit"]');
    await page.waitForURL(`${base}/auth/sso/callback?**`);
    const code = new URL((await page.locator('#open').getAttribute('href'))!).searchParams.get(
      'code',
    )!;
    expect(await page.locator('#console').innerText()).toContain('Open the console');
    await page.screenshot({ path: join(SCREENSHOTS, 'console-sso-result.png'), fullPage: true });

    await page.getByRole('button', { name: 'Open the console' }).click();
    await page.waitForURL(`${base}/console`);
    expect(await page.locator('h1').innerText()).toBe('Start');
    expect(await page.locator('#profile-name').innerText()).toBe('carol');
    expect(await seriousViolations(page)).toEqual([]);

    // The desktop button's code was the one the console redeemed.
    const spent = await t.request('POST', '/auth/invitations/redeem', {
      token: null,
      body: { secret: code },
    });
    expect(spent.status).toBe(410);
    const carol = (await t.request('GET', '/admin/users')).body.users.find(
      (user: { name: string }) => user.name === 'carol',
    );
    const tokens = async () =>
      (await t.request('GET', `/admin/tokens?userId=${carol.id}`)).body.tokens as {
        name: string;
        revokedAt: string | null;
      }[];
    expect(await tokens()).toMatchObject([
      { name: 'Web console (single sign-on)', revokedAt: null },
    ]);
    const audit = await t.request(
      'GET',
      `/admin/audit?actorId=${carol.id}&action=console.signed_in`,
    );
    expect(audit.body.events[0].details).toMatchObject({ method: 'sso' });

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${base}/console?signed-out`);
    expect(await page.locator('#notice').innerText()).toBe('You have signed out.');
    expect((await tokens())[0]!.revokedAt).not.toBeNull();
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);
});
