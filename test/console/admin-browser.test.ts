/**
 * The administrator's pages as people use them, in headless Chromium against a hub served over a
 * socket, on SQLite and PostgreSQL: every admin page passes axe-core (no serious or critical
 * violation) at 1280 and 390 pixels wide without scrolling sideways, shows the text it should (its
 * screenshot goes to test-output/), and requests nothing from another origin; a user is created
 * with access ticked by name, a token issued (its secret shown once, with a copy button) and
 * revoked, an invitation's link shown, a collection locked, the audit log filtered and downloaded,
 * the configuration reloaded; a refused form keeps what was typed; a member gets the 403 page on
 * each. On SQLite with HUB_DOCS_SCREENSHOTS=1 it also writes docs/console-user.png, a user's page
 * for the README.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { seriousViolations } from '../helpers/axe.ts';
import { SCREENSHOTS, SKIP_BROWSER, useBrowserHub, watchedPage } from '../helpers/browser.ts';
import { consoleDrivers } from '../helpers/drivers.ts';

const WIDE = { width: 1280, height: 900 };
const NARROW = { width: 390, height: 844 };
const CONFIG = { logging: { level: 'silent' }, multitenancy: { enabled: true } };

/** Each admin page, and a text its screenshot must show. */
const PAGES: [string, string, RegExp][] = [
  ['users', '/console/users', /Create user/],
  ['tokens', '/console/tokens', /Create token/],
  ['invitations', '/console/invitations', /Create invitation/],
  ['workspace', '/console/workspace', /Deletion lock/],
  ['audit', '/console/audit', /Download as JSON lines/],
  ['settings', '/console/settings', /Effective configuration/],
  ['tenants', '/console/tenants', /Switch tenant/],
];

describe.skipIf(SKIP_BROWSER).each(consoleDrivers())(
  'the admin pages in headless Chromium on %s',
  (kind) => {
    // A server.yaml to reload.
    let dir = '';
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'hub-console-browser-'));
      await writeFile(join(dir, 'server.yaml'), stringify(CONFIG));
    });
    afterAll(() => rm(dir, { recursive: true, force: true }));
    const served = useBrowserHub(
      () => ({ config: CONFIG, configPath: join(dir, 'server.yaml') }),
      kind,
    );
    const requested: string[] = [];

    async function open(viewport = WIDE) {
      const watched = await watchedPage(served.browser, viewport);
      watched.context.on('request', (request) => requested.push(request.url()));
      // The console asks before it deletes (window.confirm); a person would say yes.
      watched.page.on('dialog', (dialog) => void dialog.accept());
      return watched;
    }

    async function signIn(page: Page, token = served.t.adminToken) {
      await page.goto(`${served.base}/console`);
      await page.getByLabel('Token').fill(token);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${served.base}/console`);
    }

    async function accessible(page: Page) {
      expect(await seriousViolations(page), page.url()).toEqual([]);
    }

    it('shows every admin page readable and accessible at 1280 and 390 px', async () => {
      await served.t.request('POST', '/collections', { body: { name: 'Alpha' } });
      const { context, page, problems } = await open();
      await signIn(page);
      for (const [name, path, text] of PAGES) {
        for (const viewport of [WIDE, NARROW]) {
          await page.setViewportSize(viewport);
          await page.goto(`${served.base}${path}`);
          expect(await page.locator('main').innerText(), path).toMatch(text);
          await accessible(page);
          const width = await page.evaluate(() => document.documentElement.scrollWidth);
          expect(width, `${path} at ${viewport.width}`).toBeLessThanOrEqual(viewport.width);
          await page.screenshot({
            path: join(SCREENSHOTS, `console-${name}-${viewport.width}-${kind}.png`),
            fullPage: true,
          });
        }
      }
      expect(problems).toEqual([]);
      await context.close();
    }, 120_000);

    it('creates a user with access ticked by name, issues a token shown once and revokes it', async () => {
      await served.t.request('POST', '/collections', { body: { name: 'Beta' } });
      const { context, page, problems } = await open();
      await signIn(page);
      await page.goto(`${served.base}/console/users`);
      const create = page
        .getByRole('form', { name: '' })
        .or(page.locator('form[method=post]'))
        .last();
      await create.getByLabel('Name', { exact: true }).fill('dora');
      await create.getByRole('checkbox', { name: 'Beta' }).check();
      await create.getByRole('radio', { name: /All environments/ }).check();
      await page.getByRole('button', { name: 'Create user' }).click();
      await expect.poll(() => page.locator('h1').innerText()).toBe('User created');
      const first = await page.locator('#secret').innerText();
      expect(first).toMatch(/^hbk_/);
      await expect
        .poll(() => page.getByRole('button', { name: 'Copy their token' }).count())
        .toBe(1);
      await accessible(page);
      const dora = (await served.t.request('GET', '/admin/users')).body.users.find(
        (user: { name: string }) => user.name === 'dora',
      );
      expect(dora.environmentAccess).toEqual(['*']);
      expect(dora.collectionAccess).toHaveLength(1);

      await page.getByRole('link', { name: "Open dora's page" }).click();
      expect(await page.locator('#facts').innerText()).toContain('Collections: Beta');
      expect(await page.content()).not.toContain(first);
      if (kind === 'sqlite' && process.env.HUB_DOCS_SCREENSHOTS === '1')
        await page.screenshot({ path: join('docs', 'console-user.png') });

      await page.getByRole('link', { name: 'Tokens of dora' }).click();
      await page.getByLabel('Token name').fill('build server');
      await page.getByLabel('Expires in days').fill('7');
      await page.getByRole('button', { name: 'Create token' }).click();
      await expect.poll(() => page.locator('h1').innerText()).toBe('Token created');
      const secret = await page.locator('#secret').innerText();
      await page.getByRole('link', { name: 'Tokens of dora' }).click();
      expect(await page.content()).not.toContain(secret);
      const row = page.locator('tr', { hasText: 'build server' });
      await row.getByRole('button', { name: 'Revoke' }).click();
      await expect.poll(() => page.locator('#done').innerText()).toBe('Token revoked.');
      expect(await page.locator('tr', { hasText: 'build server' }).innerText()).toContain(
        'revoked',
      );
      expect((await served.t.request('GET', '/auth/session', { token: secret })).status).toBe(401);
      expect(problems).toEqual([]);
      await context.close();
    }, 60_000);

    it('keeps a refused form as typed, shows an invitation link, locks a collection, reloads', async () => {
      const { context, page, problems } = await open();
      await signIn(page);
      await page.goto(`${served.base}/console/invitations`);
      await page.getByLabel('Link expires in hours').fill('0');
      await page.getByLabel('Name', { exact: true }).fill('erin');
      await page.getByRole('button', { name: 'Create invitation' }).click();
      await expect.poll(() => page.locator('#f-expiresInHours-error').isVisible()).toBe(true);
      expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('erin');
      await accessible(page);
      await page.getByLabel('Link expires in hours').fill('12');
      await page.getByRole('button', { name: 'Create invitation' }).click();
      await expect.poll(() => page.locator('h1').innerText()).toBe('Invitation created');
      expect(await page.locator('#link').innerText()).toMatch(/\/join\?/);

      const alpha = await served.t.request('POST', '/collections', { body: { name: 'Lockme' } });
      await page.goto(`${served.base}/console/workspace`);
      await page.locator('tr', { hasText: 'Lockme' }).getByRole('button', { name: 'Lock' }).click();
      await expect.poll(() => page.locator('#done').innerText()).toBe('Locked.');
      const listed = await served.t.request('GET', '/admin/collections');
      expect(
        listed.body.collections.find((c: { id: string }) => c.id === alpha.body.id).deletionLocked,
      ).toBe(true);

      await page.goto(`${served.base}/console/settings`);
      await page.getByRole('button', { name: 'Reload configuration' }).click();
      await expect.poll(() => page.locator('#reload').isVisible()).toBe(true);
      expect(await page.locator('#reload').innerText()).toMatch(/db\s+unchanged/);
      expect(problems.filter((p) => !p.startsWith('Failed to load resource'))).toEqual([]);
      await context.close();
    }, 60_000);

    it('filters the audit log and downloads the selection as JSON lines', async () => {
      const { context, page } = await open();
      await signIn(page);
      await page.goto(`${served.base}/console/audit`);
      await page.getByLabel('Action').fill('collection.created');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.waitForURL(/action=collection\.created/);
      const actions = await page.locator('#events tbody td:nth-child(2)').allInnerTexts();
      expect(actions.length).toBeGreaterThan(0);
      expect(new Set(actions)).toEqual(new Set(['collection.created']));
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('link', { name: 'Download as JSON lines' }).click(),
      ]);
      const lines = (await readFile((await download.path())!, 'utf8')).trim().split('\n');
      expect(lines).toHaveLength(actions.length);
      for (const line of lines) expect(JSON.parse(line).action).toBe('collection.created');
      await context.close();
    }, 60_000);

    it('gives a member the 403 page on every admin page', async () => {
      const member = await served.t.createUser({ role: 'user' });
      const { context, page } = await open();
      await signIn(page, member.token);
      for (const [, path] of PAGES) {
        const answer = await page.goto(`${served.base}${path}`);
        expect(answer?.status(), path).toBe(403);
        expect(await page.locator('#reason').innerText()).toBe(
          'This page is for administrators of the hub.',
        );
      }
      await accessible(page);
      await context.close();
    }, 60_000);

    it('requested nothing from another origin', () => {
      expect(requested.length).toBeGreaterThan(20);
      expect(requested.filter((url) => !url.startsWith(`${served.base}/`))).toEqual([]);
    });
  },
);
