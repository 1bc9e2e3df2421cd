/**
 * `GET /` in real headless Chromium over a real socket: the front page renders its text under its
 * CSP (a blocked style would be a console error), asks nothing of any other host, and its link
 * leads to the API reference.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DESKTOP_APP_URL } from '../../kernel/http/html.ts';
import { HUB_VERSION } from '../../kernel/version.ts';
import { SCREENSHOTS, SKIP_BROWSER, useBrowserHub, watchedPage } from '../helpers/browser.ts';

describe.skipIf(SKIP_BROWSER)('the front page in headless Chromium', () => {
  const web = useBrowserHub();

  it('shows the name, version and the address to paste, styled, and links to /docs', async () => {
    const { context, page, requests, problems } = await watchedPage(web.browser, {
      width: 900,
      height: 700,
    });

    const response = await page.goto(`${web.base}/`);
    expect(response?.status()).toBe(200);
    const text = await page.locator('body').innerText();
    expect(text).toContain('workspace-hub');
    expect(text).toContain(`Version ${HUB_VERSION}`);
    expect(text).toContain('Connect the desktop app');
    expect(await page.locator('#address').innerText()).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await page.getByRole('link', { name: 'Get HarborClient' }).getAttribute('href')).toBe(
      DESKTOP_APP_URL,
    );
    // The inline style applied: the card has its rounded corners.
    const radius = await page
      .locator('.card')
      .evaluate((element) => getComputedStyle(element).borderTopLeftRadius);
    expect(radius).toBe('12px');
    await page.screenshot({ path: join(SCREENSHOTS, 'front-page.png') });
    expect(
      requests.filter((url) => !url.startsWith(`${web.base}/`) && !url.startsWith('data:')),
    ).toEqual([]);
    expect(problems).toEqual([]);

    await page.getByRole('link', { name: 'API reference' }).click();
    await page.waitForURL(`${web.base}/docs`);
    await context.close();
  }, 60_000);
});
