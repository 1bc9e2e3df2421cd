/**
 * `sso.oidc.issuer` written otherwise than the provider names itself (a trailing slash its
 * discovery accepts as the same URL): ID tokens carry the provider's spelling, so a block or link
 * an admin makes by subject under the configured spelling would never match. The hub refuses to
 * sign anyone in until the two are the same string, and says so in the log; with the provider's
 * spelling a block by subject holds.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { createLogger } from '../../kernel/log.ts';
import { EMBEDDED_DRIVER } from '../helpers/drivers.ts';
import { useTestHub } from '../helpers/hub.ts';
import { oidcClient, startTestIdp, type TestIdp } from '../helpers/oidc-idp.ts';
import { callback, codeOf, inProcess, walkToCallback } from './browserless.ts';

const HUB_BASE = 'http://hub.example.test';

describe('single sign-on with sso.oidc.issuer spelled with a trailing slash the provider lacks', () => {
  let idp: TestIdp;
  let dir: string;
  let file: string;
  const lines: string[] = [];
  const config = (issuer: string) => ({
    logging: { level: 'warn' },
    server: { publicUrl: HUB_BASE },
    sso: { oidc: { ...oidcClient(idp), issuer } },
  });
  beforeAll(async () => {
    idp = await startTestIdp({
      redirectUri: `${HUB_BASE}/auth/sso/callback`,
      people: [{ login: 'eve', groups: ['staff'] }],
    });
    dir = await mkdtemp(join(tmpdir(), 'hub-sso-issuer-'));
    file = join(dir, 'server.yaml');
    await writeFile(file, stringify(config(`${idp.issuer}/`)));
  });
  afterAll(async () => {
    await idp?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  const t = useTestHub(EMBEDDED_DRIVER, () => ({
    configPath: file,
    config: config(`${idp.issuer}/`),
    log: createLogger({ level: 'warn', format: 'json', write: (line) => void lines.push(line) }),
  }));
  const hub = inProcess(t);
  const signIn = async () => {
    const page = await callback(
      { hub },
      await walkToCallback({ hub, hubBase: HUB_BASE, login: 'eve' }),
    );
    return { status: page.status, html: await page.text() };
  };

  it('signs nobody in, and the log names sso.oidc.issuer and the spelling the provider uses', async () => {
    const started = await t.request('GET', '/auth/sso/start', { token: null });
    expect(started.status).toBe(503);
    expect(started.text).toContain('settings do not match the identity provider');
    const logged = lines.map((line) => JSON.parse(line)).find((r) => r.level === 'error');
    expect(logged.error).toBe(
      `sso.oidc.issuer is "${idp.issuer}/", but the provider names itself "${idp.issuer}": write sso.oidc.issuer exactly as the provider's discovery document does`,
    );
    expect((await t.request('GET', '/admin/sso/links')).body.links).toEqual([]);
  });

  it("holds a block by subject once the issuer is the provider's spelling", async () => {
    await writeFile(file, stringify(config(idp.issuer)));
    expect((await t.hub.reload()).ok).toBe(true);
    const first = await signIn();
    expect(first.status).toBe(200);
    const [link] = (await t.request('GET', '/admin/sso/links')).body.links;
    expect(link).toMatchObject({ issuer: idp.issuer, subject: 'eve' });
    // Offboarding as docs/deploy.md says: the user deleted, the person blocked by subject.
    expect((await t.request('DELETE', `/admin/users/${link.userId}`)).status).toBe(204);
    const block = await t.request('POST', '/admin/sso/blocks', { body: { subject: 'eve' } });
    expect(block.status).toBe(201);
    expect(block.body.issuer).toBe(idp.issuer);
    const again = await signIn();
    expect(again.status).toBe(403);
    expect(codeOf(again.html)).toBeNull();
  });
});
