/**
 * The `sso` section: validated like every section (each problem named by its YAML path), with
 * defaults, `http://` issuers only on loopback, and the relying party discovering the provider
 * again when the section changes; and the suite's own OpenID Provider, which signs people in
 * without a word on the console.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConfigError } from '../../kernel/config/errors.ts';
import { parseConfig } from '../../kernel/config/load.ts';
import { ssoSchema, type OidcConfig, type SsoConfig } from '../../plugins/sso/config.ts';
import { createRelyingParty } from '../../plugins/sso/oidc.ts';
import { EMBEDDED_DRIVER } from '../helpers/drivers.ts';
import { useTestHub } from '../helpers/hub.ts';
import { oidcClient, startTestIdp, type TestIdp } from '../helpers/oidc-idp.ts';
import { callback, codeOf, inProcess, walkToCallback } from './browserless.ts';

const sections = { sso: ssoSchema };

const yaml = (oidc: string, extra = '') => `sso:\n  oidc:\n${oidc}${extra}`;
const BASE = '    issuer: https://idp.example.com/realms/corp\n    clientId: workspace-hub\n';

function problems(text: string): ConfigError['problems'] {
  try {
    parseConfig(text, sections, { HUB_OIDC_SECRET: 's3cret' });
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('the sso section', () => {
  it('is off when absent and fills in the defaults when present', () => {
    expect(parseConfig('', sections, {}).sso).toBeUndefined();
    const config = parseConfig(yaml(`${BASE}    clientSecret: \${HUB_OIDC_SECRET}\n`), sections, {
      HUB_OIDC_SECRET: 's3cret',
    });
    expect(config.sso).toMatchObject({
      tokenTtlDays: 30,
      codeMinutes: 10,
      oidc: {
        clientSecret: 's3cret',
        scopes: ['openid', 'profile', 'email'],
        usernameClaim: 'preferred_username',
        groupsClaim: 'groups',
        allowedGroups: [],
        adminGroups: [],
        groupAccess: {},
      },
    });
  });

  it('refuses an http:// issuer that is not on a loopback address', () => {
    const found = problems(yaml('    issuer: http://idp.example.com\n    clientId: hub\n'));
    expect(found).toEqual([
      expect.objectContaining({
        path: 'sso.oidc.issuer',
        message: expect.stringContaining('https://'),
      }),
    ]);
    for (const host of ['127.0.0.1:8080', 'localhost', '[::1]:9000'])
      expect(
        parseConfig(yaml(`    issuer: http://${host}\n    clientId: hub\n`), sections, {}).sso,
      ).toBeDefined();
  });

  it('names every bad field at once', () => {
    const found = problems(
      yaml(
        '    issuer: not a url\n    scopes: [profile]\n    allowedGroups: [""]\n    tenant: x\n',
        '  tokenTtlDays: 0\n',
      ),
    );
    expect(found.map((p) => p.path).sort()).toEqual([
      'sso.oidc.allowedGroups.0',
      'sso.oidc.clientId',
      'sso.oidc.issuer',
      'sso.oidc.scopes',
      'sso.oidc.tenant',
      'sso.tokenTtlDays',
    ]);
  });
});

describe('the tenants of the sso section', () => {
  it('admits the default tenant alone by default, and names each bad tenant entry by its path', () => {
    const config = parseConfig(yaml(BASE), sections, {});
    expect(config.sso).toMatchObject({ defaultTenant: true, tenants: {} });
    const found = problems(
      yaml(
        BASE,
        [
          '  tenants:',
          '    acme: { allowedGroups: [acme-users], adminGroups: [""], tenant: x }',
          '    "not an id": {}',
          '    __default__: {}',
          '    beta: { access: { collectionAccess: [c1], vaults: [] } }',
          '  defaultTenant: maybe',
          '',
        ].join('\n'),
      ),
    );
    expect(found.map((p) => p.path).sort()).toEqual([
      'sso.defaultTenant',
      'sso.tenants.__default__',
      'sso.tenants.acme.adminGroups.0',
      'sso.tenants.acme.tenant',
      'sso.tenants.beta.access.vaults',
      'sso.tenants.not an id',
    ]);
    expect(found.find((p) => p.path === 'sso.tenants.__default__')!.message).toContain(
      'sso.defaultTenant: false',
    );
  });

  it("gives a named tenant its own rules and defaults, never the default tenant's", () => {
    const config = parseConfig(
      yaml(`${BASE}    adminGroups: [hub-admins]\n`, '  tenants:\n    acme: {}\n'),
      sections,
      {},
    );
    expect((config.sso as SsoConfig)!.tenants.acme).toEqual({
      allowedGroups: [],
      adminGroups: [],
      access: expect.objectContaining({ collectionAccess: [] }),
      groupAccess: {},
    });
  });
});

describe('the sso blocks of docs/deploy.md', () => {
  it('load as printed, with the secret from the environment', async () => {
    const doc = await readFile(new URL('../../docs/deploy.md', import.meta.url), 'utf8');
    const blocks = [...doc.matchAll(/```yaml\n(sso:[\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    for (const text of blocks)
      expect(parseConfig(text, sections, { HUB_OIDC_SECRET: 's3cret' }).sso).toBeDefined();
  });
});

describe('the relying party', () => {
  let first: TestIdp;
  let second: TestIdp;
  beforeAll(async () => {
    const redirectUri = 'http://hub.example.test/auth/sso/callback';
    first = await startTestIdp({ redirectUri, people: [] });
    second = await startTestIdp({ redirectUri, people: [] });
  });
  afterAll(async () => {
    await first?.close();
    await second?.close();
  });

  it('discovers the provider again when the section names another one', async () => {
    const oidcOf = (idp: TestIdp): OidcConfig =>
      ssoSchema.parse({
        oidc: oidcClient(idp),
      })!.oidc;
    let current = oidcOf(first);
    const rp = createRelyingParty(() => current);
    const redirect = 'http://hub.example.test/auth/sso/callback';
    const a = await rp.start(redirect);
    expect(a.url.origin).toBe(first.issuer);
    expect(a.url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(a.url.searchParams.get('redirect_uri')).toBe(redirect);
    current = oidcOf(second);
    rp.reset();
    expect((await rp.start(redirect)).url.origin).toBe(second.issuer);
  });
});

describe("the suite's OpenID Provider", () => {
  const HUB_BASE = 'http://hub.example.test';
  let idp: TestIdp;
  const said: string[] = [];
  const spies: { mockRestore(): void }[] = [];
  beforeAll(async () => {
    for (const level of ['log', 'info', 'warn', 'error'] as const)
      spies.push(
        vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
          said.push(args.map(String).join(' '));
        }),
      );
    idp = await startTestIdp({
      redirectUri: `${HUB_BASE}/auth/sso/callback`,
      people: [{ login: 'ida' }],
    });
  });
  afterAll(async () => {
    for (const spy of spies) spy.mockRestore();
    await idp?.close();
  });
  const t = useTestHub(EMBEDDED_DRIVER, () => ({
    config: { server: { publicUrl: HUB_BASE }, sso: { oidc: oidcClient(idp) } },
  }));
  const hub = inProcess(t);

  it('signs a person in through its own login and consent pages without a word on the console', async () => {
    const page = await callback(
      { hub },
      await walkToCallback({ hub, hubBase: HUB_BASE, login: 'ida' }),
    );
    expect(page.status).toBe(200);
    expect(codeOf(await page.text())).toMatch(/^hbi_/);
    expect(said.filter((line) => line.includes('oidc-provider'))).toEqual([]);
  });
});
