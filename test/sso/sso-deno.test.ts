/**
 * Single sign-on with the hub on Deno: the real CLI (`cli/deno.ts start`, `Deno.serve`, the
 * embedded SQLite database) against a real OpenID Provider in this process, walked over HTTP
 * with a cookie jar from `/login` through the provider's pages to the callback; the code then
 * redeems for a working token. The start banner names `/login`. Outside CI a missing Deno binary
 * skips; under CI=true it fails.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DENO, startServer, type RunningServer } from '../helpers/cli.ts';
import { freePort } from '../helpers/net.ts';
import { startTestIdp, type TestIdp } from '../helpers/oidc-idp.ts';
import { callback, codeOf, walkToCallback, type HubFetch } from './browserless.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const found = existsSync(DENO);

describe.skipIf(!found && process.env.CI !== 'true')('single sign-on on Deno over HTTP', () => {
  let idp: TestIdp;
  let dir = '';
  let server: RunningServer | undefined;
  let base = '';

  beforeAll(async () => {
    expect(found, `the Deno binary is missing at ${DENO}`).toBe(true);
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    idp = await startTestIdp({
      redirectUri: `${base}/auth/sso/callback`,
      people: [{ login: 'dana', groups: ['hub-users', 'hub-admins'] }],
    });
    dir = await mkdtemp(join(tmpdir(), 'hub-sso-deno-'));
    const config = join(dir, 'server.yaml');
    await writeFile(
      config,
      [
        'server:',
        '  host: 127.0.0.1',
        `  port: ${port}`,
        'db:',
        '  driver: sqlite',
        `  path: ${join(dir, 'hub.db')}`,
        'logging:',
        '  level: warn',
        'sso:',
        '  oidc:',
        `    issuer: ${idp.issuer}`,
        `    clientId: ${idp.clientId}`,
        '    clientSecret: ${HUB_OIDC_SECRET}',
        '    allowedGroups: [hub-users]',
        '    adminGroups: [hub-admins]',
        '',
      ].join('\n'),
    );
    server = await startServer(ROOT, ['--config', config], {
      runtime: 'deno',
      env: { HUB_OIDC_SECRET: idp.clientSecret },
    });
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await idp?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const hub: HubFetch = (path, init) => fetch(`${base}${path}`, { ...init, redirect: 'manual' });

  it('names /login in the start banner', () => {
    expect(server!.stdout()).toContain(`Single sign-on: ${base}/login`);
  });

  it('signs in from /login through the provider, and the code redeems for a working token', async () => {
    const walk = await walkToCallback({ hub, hubBase: base, login: 'dana' });
    const page = await callback({ hub }, walk);
    const html = await page.text();
    expect(page.status, html).toBe(200);
    const code = codeOf(html)!;
    expect(code).toMatch(/^hbi_/);
    const redeemed = await fetch(`${base}/auth/invitations/redeem`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ secret: code }),
    });
    expect(redeemed.status).toBe(201);
    const { secret } = (await redeemed.json()) as { secret: string };
    const session = await fetch(`${base}/auth/session`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    expect(session.status).toBe(200);
    expect(((await session.json()) as { user: unknown }).user).toMatchObject({
      name: 'dana',
      role: 'admin',
    });
    // Replayed: refused with a page and no code.
    const again = await callback({ hub }, walk);
    expect(again.status).toBe(400);
    expect(codeOf(await again.text())).toBeNull();
  }, 60_000);
});
