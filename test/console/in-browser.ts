/**
 * The console in headless Chromium, for the browser suites: pages of their own browser context
 * whose every request is recorded (the suites check that none went to another origin), and
 * signing in with a token as a person does.
 */
import type { Page } from 'playwright-core';
import { watchedPage, type BrowserHub } from '../helpers/browser.ts';

/** For one served hub: `open` pages, `signIn` on them, and every URL they `requested`. */
export function consoleInBrowser(served: BrowserHub) {
  const requested: string[] = [];
  return {
    requested,
    /** A page of its own browser context at `viewport`, each of its requests recorded. */
    async open(viewport: { width: number; height: number }) {
      const watched = await watchedPage(served.browser, viewport);
      watched.context.on('request', (request) => requested.push(request.url()));
      return watched;
    },
    /** Signs in at /console with `token` through the form, and waits for the first page. */
    async signIn(page: Page, token: string) {
      await page.goto(`${served.base}/console`);
      await page.getByLabel('Token').fill(token);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${served.base}/console`);
    },
  };
}
