/**
 * `GET /docs` in real headless Chromium over a real socket: the API reference renders the hub's
 * routes from `/openapi.json`, with every script and style served by the hub itself. Names of
 * other hosts do not resolve in this browser, and every request it makes is recorded, so a page
 * that reached for a CDN or a font service would show up here. Runs when HUB_TEST_CHROMIUM names a
 * browser or `chromium` is on PATH; under CI=true a missing browser fails the suite.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SCREENSHOTS, SKIP_BROWSER, useBrowserHub, watchedPage } from '../helpers/browser.ts';

describe.skipIf(SKIP_BROWSER)('the /docs page in headless Chromium', () => {
  const web = useBrowserHub();
  const { t } = web;

  it('renders the route list from /openapi.json and makes no request beyond 127.0.0.1', async () => {
    const { context, page, requests, problems } = await watchedPage(web.browser, {
      width: 1400,
      height: 900,
    });

    const response = await page.goto(`${web.base}/docs`);
    expect(response?.status()).toBe(200);
    // Redoc lists one menu entry per operation once it has loaded and rendered the document.
    const operations = page.locator('[data-item-id*="/operation/"]');
    await expect.poll(() => operations.count(), { timeout: 30_000 }).toBeGreaterThan(100);
    const doc = (await t.request('GET', '/openapi.json', { token: null })).body;
    const documented = Object.values<Record<string, unknown>>(doc.paths).reduce(
      (n, item) => n + Object.keys(item).length,
      0,
    );
    expect(await operations.count()).toBe(documented);
    const text = await page.locator('body').innerText();
    expect(text).toContain('List the collections the caller may use');
    expect(text).toContain('Re-read server.yaml and apply it');
    // Grouped by what a reader looks for, each group with its sentence; no plugin ids.
    for (const group of ['Session', 'Workspace', 'Discussions', 'Notices', 'LLM', 'Operations'])
      expect(text).toContain(group);
    expect(text).toContain('For operators and tools: the front page, health and readiness probes');
    expect(text).not.toMatch(/^(kernel|accounts|mls-relay)$/m);
    await page.screenshot({ path: join(SCREENSHOTS, 'docs-page.png') });

    expect(requests.length).toBeGreaterThan(0);
    const elsewhere = requests.filter(
      (url) =>
        !url.startsWith(`${web.base}/`) && !url.startsWith('data:') && !url.startsWith('blob:'),
    );
    expect(elsewhere).toEqual([]);
    expect(requests).toEqual(
      expect.arrayContaining([
        `${web.base}/docs`,
        `${web.base}/docs/redoc.standalone.js`,
        `${web.base}/openapi.json`,
      ]),
    );
    // A CSP violation or a failed load would be reported as a console error.
    expect(problems).toEqual([]);
    await context.close();
  }, 90_000);
});
