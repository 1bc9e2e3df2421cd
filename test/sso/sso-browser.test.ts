/**
 * Single sign-on as a person sees it, in real headless Chromium against a real OpenID Provider
 * (oidc-provider in process, its own login and consent pages): the hub's login page, the
 * provider's pages, and the hub's page with the desktop deep link, whose code then redeems for a
 * token. Screenshots of the three hub pages go to test-output/. Skipped locally without a
 * browser; under CI=true a missing browser fails the suite.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SCREENSHOTS, SKIP_BROWSER } from '../helpers/browser.ts';
import { useSsoBrowserHub } from '../helpers/sso-hub.ts';

describe.skipIf(SKIP_BROWSER)('single sign-on in headless Chromium', () => {
  const served = useSsoBrowserHub([{ login: 'alice', groups: ['hub-users'] }], {
    allowedGroups: ['hub-users'],
    displayName: 'Corp ID',
  });
  const { t } = served;

  it('walks from /login through the provider to the deep-link page, whose code redeems', async () => {
    const context = await served.browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(String(error)));

    await page.goto(`${served.base}/login`);
    expect(await page.locator('h1').textContent()).toBe('Sign in');
    expect(await page.locator('#start').textContent()).toBe('Sign in with Corp ID');
    await page.screenshot({ path: join(SCREENSHOTS, 'sso-login.png') });

    await page.click('#start');
    await page.waitForURL(`${served.idp.issuer}/interaction/**`);
    await page.fill('input[name="login"]', 'alice');
    await page.fill('input[name="password"]', 'anything');
    await page.click('button[type="submit"]');
    // The provider's consent page.
    await page.waitForSelector('text=/Authorize|Continue/i');
    await page.click('button[type="submit"]');

    await page.waitForURL(`${served.base}/auth/sso/callback?**`);
    expect(await page.locator('#title').textContent()).toBe("You're signed in to Workspace Hub");
    expect(await page.locator('#f-name').textContent()).toBe('alice');
    expect(await page.locator('#f-role').textContent()).toBe('user');
    expect(await page.locator('#hub-address').textContent()).toBe(`${served.base}`);
    // The expiry in the reader's own zone and format, by the same expression as /join's.
    const iso = (await page.locator('#f-exp').getAttribute('datetime'))!;
    expect(await page.locator('#f-exp').textContent()).toBe(
      await page.evaluate(
        (at) => new Date(at).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'long' }),
        iso,
      ),
    );
    await page.screenshot({ path: join(SCREENSHOTS, 'sso-signed-in.png'), fullPage: true });
    const deep = new URL((await page.locator('#open').getAttribute('href'))!);
    expect(deep.protocol).toBe('harborclient:');
    const code = deep.searchParams.get('code')!;
    expect(code).toMatch(/^hbi_/);
    // The pasteable join link opens the hub's own /join page for the same code.
    expect(await page.locator('#join-link').textContent()).toContain(`${served.base}/join?`);

    const redeemed = await t.request('POST', '/auth/invitations/redeem', {
      token: null,
      body: { secret: code },
    });
    expect(redeemed.status).toBe(201);
    const session = await t.request('GET', '/auth/session', { token: redeemed.body.secret });
    expect(session.body.user).toMatchObject({ name: 'alice', role: 'user' });

    // Reloading the result page: its sign-in has finished, said so, with a way to a new one.
    const again = await page.reload();
    expect(again?.status()).toBe(400);
    expect(await page.locator('#title').textContent()).toBe('Sign-in already finished');
    expect(await page.locator('#retry').textContent()).toBe('Sign in again');
    expect(await page.locator('#open').count()).toBe(0);
    await page.screenshot({ path: join(SCREENSHOTS, 'sso-refused.png') });
    await page.click('#home');
    await page.waitForURL(`${served.base}/`);
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);
});
