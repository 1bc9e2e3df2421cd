/**
 * The console on Deno: the real CLI (`cli/deno.ts start`, `Deno.serve`, the embedded SQLite
 * database, the first admin's token from WORKSPACE_HUB_ADMIN_TOKEN_FILE) and headless Chromium:
 * the sign-in page, signing in with the token, and the overview — each with no serious or
 * critical axe-core violation and no request to another origin. Outside CI a missing Deno binary
 * or browser skips; under CI=true either fails.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from '../helpers/axe.ts';
import { CHROMIUM, OFFLINE_ARGS, SCREENSHOTS, SKIP_BROWSER } from '../helpers/browser.ts';
import { DENO, startServer, type RunningServer } from '../helpers/cli.ts';
import { freePort } from '../helpers/net.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const skip = (!existsSync(DENO) && process.env.CI !== 'true') || SKIP_BROWSER;
const TOKEN = `hbk_${'d'.repeat(43)}`;

describe.skipIf(skip)('the console on Deno in headless Chromium', () => {
  let dir = '';
  let server: RunningServer | undefined;
  let browser: Browser | undefined;
  let base = '';

  beforeAll(async () => {
    expect(existsSync(DENO), `the Deno binary is missing at ${DENO}`).toBe(true);
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    dir = await mkdtemp(join(tmpdir(), 'hub-console-deno-'));
    await writeFile(join(dir, 'admin-token'), `${TOKEN}\n`, { mode: 0o600 });
    const config = join(dir, 'server.yaml');
    await writeFile(
      config,
      `server:\n  host: 127.0.0.1\n  port: ${port}\ndb:\n  driver: sqlite\n  path: ${join(dir, 'hub.db')}\nlogging:\n  level: warn\n`,
    );
    server = await startServer(ROOT, ['--config', config], {
      runtime: 'deno',
      env: { WORKSPACE_HUB_ADMIN_TOKEN_FILE: join(dir, 'admin-token') },
    });
    browser = await chromium.launch({ executablePath: CHROMIUM!, args: OFFLINE_ARGS });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('serves the sign-in page and, signed in with a token, the overview', async () => {
    const context = await browser!.newContext({ viewport: { width: 1280, height: 900 } });
    const requested: string[] = [];
    context.on('request', (request) => requested.push(request.url()));
    const page = await context.newPage();
    const answer = await page.goto(`${base}/console`);
    expect(answer?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(await page.locator('h1').innerText()).toBe('Sign in');
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByLabel('Token').fill(TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/console`);
    expect(await page.locator('h1').innerText()).toBe('Overview');
    expect(await page.locator('#database').innerText()).toBe('sqlite');
    expect(await page.locator('#who').innerText()).toContain('admin');
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: join(SCREENSHOTS, 'console-overview-deno.png'), fullPage: true });
    expect(requested.filter((url) => !url.startsWith(`${base}/`))).toEqual([]);
    await context.close();
  }, 60_000);
});
