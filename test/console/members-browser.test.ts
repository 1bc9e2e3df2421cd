/**
 * The console's member pages as people use them, in headless Chromium against a hub served over
 * a socket, on SQLite and PostgreSQL: a member finds a request edited by two users through the
 * navigation and the collection's tree, compares versions side by side and unified, restores the
 * old one with the confirm dialog (the API then answers it), undeletes from the trash, marks a
 * notice read and sets a picture; a member without access gets 403 pages for another collection's
 * tree, trash and history; an administrator opens every member page. Every page passes axe-core
 * with no serious or critical violation at 1280 and 390 pixels wide, requests nothing from
 * another origin, and has its text checked before its screenshot goes to test-output/ (and, with
 * HUB_DOCS_SCREENSHOTS=1 on SQLite, the README's to docs/). Skipped locally without a browser;
 * under CI=true a missing browser fails.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { seriousViolations } from '../helpers/axe.ts';
import { SCREENSHOTS, SKIP_BROWSER, useBrowserHub } from '../helpers/browser.ts';
import { consoleDrivers } from '../helpers/drivers.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { ordersTree } from './orders-tree.ts';
import { consoleInBrowser } from './in-browser.ts';

const WIDE = { width: 1280, height: 900 };
const NARROW = { width: 390, height: 844 };
const DOCS = join(process.cwd(), 'docs');

describe.skipIf(SKIP_BROWSER).each(consoleDrivers())(
  'the console member pages in headless Chromium on %s',
  (kind) => {
    const served = useBrowserHub({}, kind);
    const h = fixtures(served.t);
    const { open, signIn, requested } = consoleInBrowser(served);

    /** axe finds nothing serious at this width and at 390 px, where nothing overflows sideways. */
    async function accessible(page: Page) {
      expect(await seriousViolations(page), page.url()).toEqual([]);
      const wide = page.viewportSize()!;
      await page.setViewportSize(NARROW);
      expect(await seriousViolations(page), `${page.url()} at 390 px`).toEqual([]);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width, `${page.url()} at 390 px`).toBeLessThanOrEqual(NARROW.width);
      await page.setViewportSize(wide);
    }

    /** A screenshot in test-output/, and in docs/ when asked (SQLite only, so one run writes it). */
    async function screenshot(page: Page, name: string, docs = false) {
      await page.screenshot({ path: join(SCREENSHOTS, `${name}-${kind}.png`), fullPage: true });
      if (docs && kind === 'sqlite' && process.env.HUB_DOCS_SCREENSHOTS === '1')
        await page.screenshot({ path: join(DOCS, `${name}.png`), fullPage: true });
    }

    /** Clicks `name` and accepts the confirm dialog the script opens, checking what it asks. */
    async function confirmClick(page: Page, name: string, asks: RegExp) {
      const dialog = page.waitForEvent('dialog').then(async (shown) => {
        expect(shown.message()).toMatch(asks);
        await shown.accept();
      });
      await Promise.all([
        page.waitForNavigation(),
        page.getByRole('button', { name, exact: true }).first().click(),
      ]);
      await dialog;
    }

    it('takes a member from the tree to a diff of two users’ edits, restores the old version and undeletes from the trash', async () => {
      const { collection, request } = await ordersTree(h, {
        collection: { name: 'Shop API' },
        request: { url: 'https://shop.test/orders', body: '{\n  "item": "book",\n  "count": 1\n}' },
        document: { content: '# Shop\n<b>not bold</b>' },
      });
      const [alice, bob] = [
        await served.t.createUser({ name: 'alice', collectionAccess: [collection.id] }),
        await served.t.createUser({ name: 'bob', collectionAccess: [collection.id] }),
      ];
      const edit = (token: string, body: object) =>
        served.t.request('PUT', `/requests/${request.id}`, {
          token,
          body: { collectionId: collection.id, ...body },
        });
      expect((await edit(alice.token, { url: 'https://shop.test/v2/orders' })).status).toBe(200);
      const bobs = { body: '{\n  "item": "book",\n  "count": 3\n}' };
      expect((await edit(bob.token, bobs)).status).toBe(200);

      const { context, page, problems } = await open(WIDE);
      await signIn(page, alice.token);
      await page
        .getByRole('navigation', { name: 'Console' })
        .getByRole('link', { name: 'Collections' })
        .click();
      expect(await page.locator('h1').innerText()).toBe('Collections');
      await accessible(page);
      await page.getByRole('link', { name: 'Shop API', exact: true }).click();
      expect(await page.locator('h1').innerText()).toBe('Collection “Shop API”');
      const tree = await page.locator('.tree').first().innerText();
      expect(tree).toContain('Orders');
      expect(tree).toMatch(/POST\s+Create order\s+https:\/\/shop\.test\/v2\/orders/);
      await page.getByText('Text of Read me').click();
      expect(await page.locator('details pre').innerText()).toBe('# Shop\n<b>not bold</b>');
      await accessible(page);
      await screenshot(page, 'console-collection');

      await page.getByRole('link', { name: 'History of Create order' }).click();
      expect(await page.locator('h1').innerText()).toBe('History of saved request “Create order”');
      expect(await page.locator('#diff-title').innerText()).toMatch(
        /^From version 2, updated by alice to version 3, updated by bob$/,
      );
      const count = (side: 'del' | 'ins') =>
        page.locator(`#diff td.${side}`, { hasText: '"count"' });
      expect(await count('del').innerText()).toContain('"count": 1');
      expect(await count('del').locator('del').innerText()).toBe('1');
      expect(await count('ins').locator('ins').innerText()).toBe('3');
      await accessible(page);
      await screenshot(page, 'console-diff', true);
      await page.setViewportSize(NARROW);
      await screenshot(page, 'console-diff-390');
      await page.setViewportSize(WIDE);

      // Version 1 against the newest, unified.
      const first = page.locator('#f-from option', { hasText: /^Version 1 ·/ });
      await page.getByLabel('From').selectOption((await first.getAttribute('value'))!);
      await page.getByLabel('Unified').check();
      await page.getByRole('button', { name: 'Compare' }).click();
      await page.waitForURL(/view=unified/);
      expect(await page.locator('table.diff.unified').count()).toBeGreaterThanOrEqual(2);
      expect(await page.locator('#diff').innerText()).toMatch(
        /https:\/\/shop\.test\/orders[\s\S]*https:\/\/shop\.test\/v2\/orders/,
      );
      await accessible(page);
      await screenshot(page, 'console-diff-unified');

      await confirmClick(page, 'Restore version 1', /^Restore version 1 of “Create order”\?/);
      expect(await page.locator('[role=status]').innerText()).toBe(
        'Restored version 1: it is now version 4.',
      );
      const now = await served.t.request('GET', `/requests/${request.id}`, { token: alice.token });
      expect(now.body).toMatchObject({ url: 'https://shop.test/orders', body: request.body });

      // The trash: a request Alice deleted comes back.
      const gone = await h.request(collection.id, { name: 'Refund order' }, alice.token);
      const deleted = await served.t.request('DELETE', `/requests/${gone.id}`, {
        token: alice.token,
      });
      expect(deleted.status).toBe(204);
      await page.getByRole('link', { name: 'Trash', exact: true }).click();
      expect(await page.locator('h1').innerText()).toBe('Trash of “Shop API”');
      expect(await page.locator('#trash').innerText()).toContain('Refund order');
      await accessible(page);
      await screenshot(page, 'console-trash');
      await confirmClick(
        page,
        'Restore Refund order',
        /^Restore the saved request “Refund order”\?$/,
      );
      expect(await page.locator('[role=status]').innerText()).toContain(
        'Restored the saved request: it is back in the collection.',
      );
      const back = await served.t.request('GET', `/requests/${gone.id}`, { token: alice.token });
      expect(back.status).toBe(200);
      expect(await page.locator('#empty').isVisible()).toBe(true);
      expect(problems).toEqual([]);
      await context.close();
    }, 120_000);

    it('shows a member their notices and profile, with a picture and its refusal', async () => {
      const collection = await h.collection();
      const request = await h.request(collection.id, { name: 'Ping' });
      const member = await h.user({ collectionAccess: [collection.id] });
      const thread = await h.create(
        `/requests/${request.id}/discussions`,
        { body: 'Is this still used?' },
        member.token,
      );
      await h.create(`/discussion-comments/${thread.id}/replies`, {
        body: 'Yes, by the <b>monitor</b>',
      });

      const { context, page, problems } = await open(WIDE);
      await signIn(page, member.token);
      expect(await page.locator('#unread').innerText()).toBe('1 unread notice');
      await page
        .getByRole('navigation', { name: 'Console' })
        .getByRole('link', { name: 'Notices' })
        .click();
      expect(await page.locator('#feed-title').innerText()).toBe('1 unread');
      expect(await page.locator('#notices').innerText()).toMatch(
        /replied in a discussion on Ping[\s\S]*Yes, by the <b>monitor<\/b>/,
      );
      await accessible(page);
      await screenshot(page, 'console-notices');
      await page.getByRole('button', { name: /^Mark read/ }).click();
      await expect.poll(() => page.locator('#feed-title').innerText()).toBe('Nothing unread');

      await page
        .getByRole('navigation', { name: 'Console' })
        .getByRole('link', { name: 'Profile' })
        .click();
      expect(await page.locator('h1').innerText()).toBe('Your profile');
      await accessible(page);
      // A picture of the member's own avatar, made by the browser.
      const png = await page.locator('.who-am-i .avatar').screenshot();
      await page
        .getByLabel('Picture', { exact: true })
        .setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: png });
      await page.getByRole('button', { name: 'Upload picture' }).click();
      await expect.poll(() => page.locator('[role=status]').innerText()).toBe('Picture saved.');
      expect(await page.locator('img.picture').getAttribute('src')).toMatch(
        /^data:image\/png;base64,/,
      );
      expect(
        await page.locator('img.picture').evaluate((img: HTMLImageElement) => img.naturalWidth),
      ).toBeGreaterThan(0);
      await accessible(page);
      await screenshot(page, 'console-profile');

      await page.getByLabel('Picture', { exact: true }).setInputFiles({
        name: 'fake.png',
        mimeType: 'image/png',
        buffer: Buffer.from('not a picture'),
      });
      await page.getByRole('button', { name: 'Upload picture' }).click();
      await expect.poll(() => page.locator('#f-picture-error').isVisible()).toBe(true);
      expect(await page.locator('#f-picture-error').innerText()).toMatch(/^imageDataUrl: /);
      expect(await page.getByLabel('Picture', { exact: true }).getAttribute('aria-invalid')).toBe(
        'true',
      );
      await accessible(page);
      await confirmClick(page, 'Remove picture', /^Remove your picture\?/);
      expect(await page.locator('[role=status]').innerText()).toBe('Picture removed.');
      expect(await page.locator('img.picture').count()).toBe(0);
      expect(problems.filter((problem) => !problem.startsWith('Failed to load resource'))).toEqual(
        [],
      );
      await context.close();
    }, 120_000);

    it("gives a member without access 403 pages for another collection's tree, trash and history", async () => {
      const collection = await h.collection();
      const request = await h.request(collection.id);
      const outsider = await h.user({ collectionAccess: [] });
      const { context, page } = await open(WIDE);
      await signIn(page, outsider.token);
      for (const path of [
        `/console/collections/${collection.id}`,
        `/console/collections/${collection.id}/trash`,
        `/console/history/requests/${request.id}`,
      ]) {
        const answer = await page.goto(`${served.base}${path}`);
        expect(answer?.status(), path).toBe(403);
        expect(await page.locator('h1').innerText()).toBe('Not allowed');
        expect(await page.locator('#reason').innerText()).toMatch(/collectionAccess/);
      }
      await accessible(page);
      await screenshot(page, 'console-history-403');
      await context.close();
    }, 60_000);

    it('opens every member page as an administrator, axe-clean at 1280 and 390 px', async () => {
      const collection = await h.collection(undefined, { name: 'Admin view' });
      const request = await h.request(collection.id, {
        name: 'Health',
        url: 'https://api.test/health',
      });
      await served.t.request('PUT', `/requests/${request.id}`, {
        body: { collectionId: collection.id, url: 'https://api.test/healthz' },
      });
      const doomed = await h.document(collection.id, { name: 'Old notes' });
      await served.t.request('DELETE', `/documents/${doomed.id}`);
      const { context, page, problems } = await open(WIDE);
      await signIn(page, served.t.adminToken);
      expect(await page.locator('h1').innerText()).toBe('Overview');
      await screenshot(page, 'console-overview', true);
      const nav = await page.getByRole('navigation', { name: 'Console' }).innerText();
      for (const label of ['Home', 'Collections', 'Notices', 'Profile'])
        expect(nav).toContain(label);
      const pages: [string, string][] = [
        ['/console/collections', 'Collections'],
        [`/console/collections/${collection.id}`, 'Collection “Admin view”'],
        [`/console/collections/${collection.id}/trash`, 'Trash of “Admin view”'],
        [`/console/history/requests/${request.id}`, 'History of saved request “Health”'],
        [`/console/history/collections/${collection.id}`, 'History of collection “Admin view”'],
        [`/console/history/documents/${doomed.id}`, 'History of document “Old notes”'],
        ['/console/notices', 'Notices'],
        ['/console/profile', 'Your profile'],
      ];
      for (const [path, title] of pages) {
        const answer = await page.goto(`${served.base}${path}`);
        expect(answer?.status(), path).toBe(200);
        expect(await page.locator('h1').innerText(), path).toBe(title);
        await accessible(page);
        await screenshot(
          page,
          `console-admin${path
            .replace(/^\/console/, '')
            .replace(/\/[0-9a-f-]{36}/g, '-id')
            .replaceAll('/', '-')}`,
        );
      }
      expect(await page.locator('#f-level').inputValue()).toBe('all');
      expect(problems).toEqual([]);
      await context.close();
    }, 120_000);

    it('requested nothing from another origin', () => {
      expect(requested.length).toBeGreaterThan(20);
      expect(requested.filter((url) => !url.startsWith(`${served.base}/`))).toEqual([]);
    });
  },
);
