/**
 * `GET /docs` in real headless Chromium over a real socket: the API reference renders the hub's
 * routes from `/openapi.json`, with every script and style served by the hub itself. Names of
 * other hosts do not resolve in this browser, and every request it makes is recorded, so a page
 * that reached for a CDN or a font service would show up here. Runs when HUB_TEST_CHROMIUM names a
 * browser or `chromium` is on PATH; under CI=true a missing browser fails the suite.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { delimiter, join } from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpDrivers, openTestDriver, type TestDriver } from '../helpers/drivers.ts';
import { startTestHub, type TestHub } from '../helpers/hub.ts';

function findChromium(): string | undefined {
  if (process.env.HUB_TEST_CHROMIUM) return process.env.HUB_TEST_CHROMIUM;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    for (const name of ['chromium', 'chromium-browser']) if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

const executablePath = findChromium();
const OUTPUT = join(process.cwd(), 'test-output');

/** No host but the loopback address resolves, and Chromium's own background traffic is off. */
const OFFLINE_ARGS = [
  '--no-sandbox',
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-domain-reliability',
  '--disable-sync',
  '--no-first-run',
];

describe.skipIf(!executablePath && process.env.CI !== 'true')('the /docs page in headless Chromium', () => {
  let db: TestDriver;
  let t: TestHub;
  let server: ServerType;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    if (!executablePath) throw new Error('CI=true but no Chromium found: install the Debian "chromium" package or set HUB_TEST_CHROMIUM.');
    db = await openTestDriver(httpDrivers()[0]!);
    t = await startTestHub({ driver: db.driver });
    server = await new Promise<ServerType>((resolve) => {
      const started = serve({ fetch: t.hub.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(started));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await chromium.launch({ executablePath, args: OFFLINE_ARGS });
    await mkdir(OUTPUT, { recursive: true });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    await t?.close();
    await db?.cleanup();
  });

  it('renders the route list from /openapi.json and makes no request beyond 127.0.0.1', async () => {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await context.newPage();
    const requests: string[] = [];
    context.on('request', (request) => requests.push(request.url()));
    const problems: string[] = [];
    page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
    page.on('pageerror', (error) => problems.push(String(error)));

    const response = await page.goto(`${base}/docs`);
    expect(response?.status()).toBe(200);
    // Redoc lists one menu entry per operation once it has loaded and rendered the document.
    const operations = page.locator('[data-item-id*="/operation/"]');
    await expect.poll(() => operations.count(), { timeout: 30_000 }).toBeGreaterThan(100);
    const doc = (await t.request('GET', '/openapi.json', { token: null })).body;
    const documented = Object.values<Record<string, unknown>>(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0);
    expect(await operations.count()).toBe(documented);
    const text = await page.locator('body').innerText();
    expect(text).toContain('List the collections the caller may use');
    expect(text).toContain('Re-read server.yaml and apply it');
    await page.screenshot({ path: join(OUTPUT, 'docs-page.png') });

    expect(requests.length).toBeGreaterThan(0);
    const elsewhere = requests.filter((url) => !url.startsWith(`${base}/`) && !url.startsWith('data:') && !url.startsWith('blob:'));
    expect(elsewhere).toEqual([]);
    expect(requests).toEqual(expect.arrayContaining([`${base}/docs`, `${base}/docs/redoc.standalone.js`, `${base}/openapi.json`]));
    // A CSP violation or a failed load would be reported as a console error.
    expect(problems).toEqual([]);
    await context.close();
  }, 90_000);
});
