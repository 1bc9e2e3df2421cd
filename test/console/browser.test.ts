/**
 * The console as people use it, in headless Chromium against a hub served over a socket, on
 * SQLite and PostgreSQL: an administrator signs in with a token and reads the overview (its live
 * filter from the console's script), a member signs in, sees their start page, fixes a refused
 * profile form, gets the 403 page on an administrator's page, has a form without the session's
 * token refused, and finds the session ended on the next page once their token is revoked. Every
 * page passes axe-core with no serious or critical violation, at 1280 and 390 pixels wide; the
 * pages request nothing from another origin; screenshots go to test-output/ with the text they
 * show checked. Skipped locally without a browser; under CI=true a missing browser fails.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { seriousViolations } from '../helpers/axe.ts';
import { SCREENSHOTS, SKIP_BROWSER, useBrowserHub } from '../helpers/browser.ts';
import { consoleDrivers } from '../helpers/drivers.ts';
import { pluginsWithProbe } from './client.ts';
import { consoleInBrowser } from './in-browser.ts';

const WIDE = { width: 1280, height: 900 };
const NARROW = { width: 390, height: 844 };

describe.skipIf(SKIP_BROWSER).each(consoleDrivers())(
  'the console in headless Chromium on %s',
  (kind) => {
    const served = useBrowserHub(async () => ({ plugins: await pluginsWithProbe() }), kind);
    const { open, signIn, requested } = consoleInBrowser(served);

    /** axe-core finds nothing serious or critical on the page as it is. */
    async function accessible(page: Page) {
      expect(await seriousViolations(page), page.url()).toEqual([]);
    }

    it('lets an administrator sign in with a token and read the overview, at 1280 and 390 px', async () => {
      const { context, page, problems } = await open(WIDE);
      await page.goto(`${served.base}/console`);
      await accessible(page);
      expect(await page.locator('h1').innerText()).toBe('Sign in');
      await page.screenshot({ path: join(SCREENSHOTS, `console-sign-in-${kind}.png`) });
      await signIn(page, served.t.adminToken);
      await expect.poll(() => page.locator('h1').innerText()).toBe('Overview');
      expect(await page.locator('#database').innerText()).toBe(kind);
      expect(await page.locator('[data-count="users"]').innerText()).toMatch(/^\d+\s+users$/);
      expect(await page.locator('#readiness').innerText()).toContain('database');
      expect(await page.getByRole('navigation', { name: 'Console' }).innerText()).toContain(
        'Probe',
      );
      await accessible(page);
      await page.screenshot({
        path: join(SCREENSHOTS, `console-overview-${kind}.png`),
        fullPage: true,
      });

      // The script's live filter: typed text leaves the matching rows of the audit table.
      await page.getByLabel('Filter events').fill('console.signed_in');
      const rows = page.locator('#audit tbody tr:visible');
      expect(await rows.count()).toBeGreaterThan(0);
      for (const text of await rows.allInnerTexts()) expect(text).toContain('console.signed_in');

      await page.setViewportSize(NARROW);
      await page.reload();
      await accessible(page);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width).toBeLessThanOrEqual(NARROW.width);
      await page.screenshot({
        path: join(SCREENSHOTS, `console-overview-390-${kind}.png`),
        fullPage: true,
      });

      // Keyboard: the first Tab reaches the skip link, which moves to the main content.
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(
        'Skip to content',
      );
      await page.keyboard.press('Enter');
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
      expect(problems).toEqual([]);
      await context.close();
    }, 60_000);

    it('gives a member their start page, the API message beside a refused field, 403 on an admin page, and no form without its token', async () => {
      const member = await served.t.createUser({ role: 'user' });
      const { context, page, problems } = await open(WIDE);
      await signIn(page, member.token);
      expect(await page.locator('h1').innerText()).toBe('Start');
      expect(await page.getByRole('navigation', { name: 'Console' }).innerText()).not.toContain(
        'Probe',
      );
      await accessible(page);

      await page.getByLabel('Initials').fill('TOO-LONG-FOR-INITIALS');
      await page.getByRole('button', { name: 'Save profile' }).click();
      await expect.poll(() => page.locator('#f-initials-error').isVisible()).toBe(true);
      expect(await page.locator('#f-initials-error').innerText()).toMatch(/^initials: /);
      expect(await page.getByLabel('Initials').inputValue()).toBe('TOO-LONG-FOR-INITIALS');
      await accessible(page);
      await page.screenshot({
        path: join(SCREENSHOTS, `console-start-refused-${kind}.png`),
        fullPage: true,
      });
      await page.getByLabel('Initials').fill('MB');
      await page.getByRole('button', { name: 'Save profile' }).click();
      await expect.poll(() => page.locator('[role=status]').innerText()).toBe('Profile saved.');
      expect(await page.locator('header .avatar').innerText()).toBe('MB');

      const forbidden = await page.goto(`${served.base}/console/probe`);
      expect(forbidden?.status()).toBe(403);
      expect(await page.locator('#reason').innerText()).toBe(
        'This page is for administrators of the hub.',
      );
      await accessible(page);
      await page.screenshot({ path: join(SCREENSHOTS, `console-403-${kind}.png`) });

      // A form built without the session's token (as another page could): refused with a page.
      await page.goto(`${served.base}/console`);
      await Promise.all([
        page.waitForURL(`${served.base}/console`),
        page.evaluate(() => {
          const form = document.createElement('form');
          form.method = 'post';
          form.action = '/console';
          form.innerHTML = '<input name="initials" value="XX">';
          document.body.append(form);
          form.submit();
        }),
      ]);
      expect(await page.locator('#reason').innerText()).toContain(
        "did not carry this session's form token",
      );
      expect(await page.locator('h1').innerText()).toBe('Not allowed');

      // The token revoked: the very next page is the sign-in page, saying why.
      const tokens = await served.t.request('GET', `/admin/tokens?userId=${member.id}`);
      await served.t.request('DELETE', `/admin/tokens/${tokens.body.tokens[0].id}`);
      const ended = await page.goto(`${served.base}/console`);
      expect(ended?.status()).toBe(401);
      expect(await page.locator('h1').innerText()).toBe('Sign in');
      expect(await page.locator('#notice').innerText()).toContain('Your console session has ended');
      await accessible(page);
      // Chromium reports each refusal page's status as a console error; nothing else may appear.
      expect(problems.filter((problem) => !problem.startsWith('Failed to load resource'))).toEqual(
        [],
      );
      await context.close();
    }, 60_000);

    it('requested nothing from another origin', () => {
      expect(requested.length).toBeGreaterThan(10);
      expect(requested.filter((url) => !url.startsWith(`${served.base}/`))).toEqual([]);
    });
  },
);
