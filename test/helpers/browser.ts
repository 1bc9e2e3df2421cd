/**
 * Real headless Chromium against a hub served over a real socket, for the page suites (`/join`,
 * `/docs`). The browser is Debian's (`HUB_TEST_CHROMIUM`, else `chromium` on PATH); playwright-core
 * never downloads one. Locally a missing browser skips the suite; under CI=true it fails it.
 */
import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { findChromium } from './chromium.ts';
import { EMBEDDED_DRIVER, type DriverKind } from './drivers.ts';
import { useTestHub, type UsedTestHub } from './hub.ts';

export const CHROMIUM = findChromium();
/** Whether a browser suite should be skipped: only locally, never under CI. */
export const SKIP_BROWSER = !CHROMIUM && process.env.CI !== 'true';
/** Where the suites write their screenshots. */
export const SCREENSHOTS = join(process.cwd(), 'test-output');

/** No host but the loopback address resolves, and Chromium's own background traffic is off (also for suites that serve their own hub). */
export const OFFLINE_ARGS = [
  '--no-sandbox',
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-domain-reliability',
  '--disable-sync',
  '--no-first-run',
];

export interface BrowserHub {
  /** The hub, on a fresh database. */
  t: UsedTestHub;
  /** `http://127.0.0.1:<port>` of the served hub. */
  readonly base: string;
  readonly browser: Browser;
}

/**
 * For the enclosing describe block: a hub on a fresh database (embedded unless `kind` says),
 * served on a free loopback port (or on `port()`, for a hub whose config must name its address
 * beforehand), and a browser for it; read `base` and `browser` inside tests.
 */
export function useBrowserHub(
  options: Parameters<typeof useTestHub>[1] = {},
  kind: DriverKind = EMBEDDED_DRIVER,
  port: () => number = () => 0,
): BrowserHub {
  const t = useTestHub(kind, options);
  let server: ServerType | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    if (!CHROMIUM)
      throw new Error(
        'CI=true but no Chromium found: install the Debian "chromium" package or set HUB_TEST_CHROMIUM.',
      );
    const hub = t.hub;
    server = await new Promise<ServerType>((resolve) => {
      const started = serve({ fetch: hub.fetch, hostname: '127.0.0.1', port: port() }, () =>
        resolve(started),
      );
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: OFFLINE_ARGS });
    await mkdir(SCREENSHOTS, { recursive: true });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  });
  const ready = () => {
    if (!server || !browser)
      throw new Error('The browser hub starts in beforeAll: read it inside tests.');
    return { server, browser };
  };
  return {
    t,
    get base() {
      return `http://127.0.0.1:${(ready().server.address() as AddressInfo).port}`;
    },
    get browser() {
      return ready().browser;
    },
  };
}

/**
 * A new page of its own context at `viewport` that records every URL the page requests and every
 * console error and uncaught exception, for tests that assert a page loads nothing from elsewhere
 * and runs cleanly.
 */
export async function watchedPage(browser: Browser, viewport: { width: number; height: number }) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const requests: string[] = [];
  context.on('request', (request) => requests.push(request.url()));
  const problems: string[] = [];
  page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
  page.on('pageerror', (error) => problems.push(String(error)));
  return { context, page, requests, problems };
}
