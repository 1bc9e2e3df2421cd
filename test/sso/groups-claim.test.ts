/**
 * A provider that sends `groups` only for the `groups` scope (as many do), and a hub set up
 * without that scope: the person is refused, but the refusal says what it is — the log warns the
 * operator naming `groupsClaim` and `scopes`, the audit log gives a reason of its own, the page
 * does not call the person an outsider — and with the scope added the same person signs in.
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

describe('single sign-on when the provider sends no groups claim', () => {
  let idp: TestIdp;
  let dir: string;
  let file: string;
  const lines: string[] = [];
  const config = (scopes?: string[]) => ({
    logging: { level: 'warn' },
    server: { publicUrl: HUB_BASE },
    sso: {
      oidc: {
        ...oidcClient(idp),
        allowedGroups: ['hub-users'],
        ...(scopes ? { scopes } : {}),
      },
    },
  });
  beforeAll(async () => {
    idp = await startTestIdp({
      redirectUri: `${HUB_BASE}/auth/sso/callback`,
      people: [
        { login: 'gus', groups: ['hub-users'] },
        { login: 'ola', groups: ['contractors'] },
      ],
      groupsScope: true,
    });
    dir = await mkdtemp(join(tmpdir(), 'hub-sso-groups-'));
    file = join(dir, 'server.yaml');
    await writeFile(file, stringify(config()));
  });
  afterAll(async () => {
    await idp?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  const t = useTestHub(EMBEDDED_DRIVER, () => ({
    configPath: file,
    config: config(),
    log: createLogger({ level: 'warn', format: 'json', write: (line) => void lines.push(line) }),
  }));
  const hub = inProcess(t);
  const signIn = async (login: string) => {
    const page = await callback({ hub }, await walkToCallback({ hub, hubBase: HUB_BASE, login }));
    return { status: page.status, html: await page.text() };
  };
  const reasons = async () =>
    (
      (await t.request('GET', '/admin/audit?action=sso.refused')).body.events as {
        target: { id: string };
        details: { reason: string };
      }[]
    ).map((e) => [e.target.id, e.details.reason]);

  it('refuses with a reason of its own, and warns naming groupsClaim and scopes', async () => {
    const page = await signIn('gus');
    expect(page.status).toBe(403);
    expect(page.html).toContain('did not say which groups your account is in');
    expect(page.html).not.toContain('not in a group allowed');
    expect(codeOf(page.html)).toBeNull();
    expect(await reasons()).toContainEqual([
      'gus',
      'the provider sent no groups claim (sso.oidc.groupsClaim)',
    ]);
    const warning = lines
      .map((line) => JSON.parse(line))
      .find((r) => r.level === 'warn' && String(r.msg).startsWith('Single sign-on'));
    expect(warning.msg).toContain('sso.oidc.groupsClaim');
    expect(warning.msg).toContain('sso.oidc.scopes (now: openid, profile, email)');
  });

  it('signs the person in once scopes ask for groups, and still refuses an outsider as one', async () => {
    await writeFile(file, stringify(config(['openid', 'profile', 'email', 'groups'])));
    const outcome = await t.hub.reload();
    expect(outcome.ok).toBe(true);
    const gus = await signIn('gus');
    expect(gus.status).toBe(200);
    expect(codeOf(gus.html)).toMatch(/^hbi_/);
    const ola = await signIn('ola');
    expect(ola.status).toBe(403);
    expect(ola.html).toContain('not in a group allowed on this hub');
    expect(await reasons()).toContainEqual(['ola', 'not in an allowed group']);
  });
});
