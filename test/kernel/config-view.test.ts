/**
 * `GET /admin/config`: the effective configuration with every secret as `***` — fields the
 * schemas mark (also under names that look harmless), keys that read like credentials, and every
 * string the file took from `${NAME}` (after a reload that reads the file with its environment) —
 * while harmless values, numbers read from variables and `server.publicUrl` stay readable; and
 * who may read it (administrators of the default tenant).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { z } from 'zod';
import { parseConfig, pathsFromEnvironment } from '../../kernel/config/load.ts';
import { MASK, maskConfig, secret } from '../../kernel/config/secrets.ts';
import { kernelSections } from '../../kernel/config/sections.ts';
import { OPERATOR_ONLY } from '../../kernel/http/operator.ts';
import { EMBEDDED_DRIVER } from '../helpers/drivers.ts';
import { useTestHub } from '../helpers/hub.ts';

describe('masking the configuration', () => {
  const sections = {
    // A plugin's section whose secret field has a name no key rule would catch.
    vault: z.strictObject({ hush: secret(z.string()), label: z.string() }).optional(),
  };
  const schema = z.strictObject({ ...kernelSections, ...sections });
  const env = { PGHOST: 'db.internal', PGPORT: '6543', PGPASS: 's3cret' };
  const text = stringify({
    server: { publicUrl: 'https://hub.example.com', port: 8790 },
    db: {
      driver: 'postgres',
      host: '${PGHOST}',
      port: '${PGPORT}',
      user: 'hub',
      password: '${PGPASS}',
      database: 'hub',
    },
    redis: { host: 'cache', password: '' },
    metrics: { token: 'a-metrics-token-of-16+' },
    vault: { hush: 'quiet', label: 'plain' },
  });

  it('shows *** for schema secrets, credential-like keys and ${NAME} strings, and nothing else', () => {
    const config = parseConfig(text, sections, env);
    const shown = maskConfig(config, schema, pathsFromEnvironment(config)) as any;
    expect(shown.vault).toEqual({ hush: MASK, label: 'plain' });
    expect(shown.db).toMatchObject({
      driver: 'postgres',
      host: MASK,
      port: 6543,
      user: 'hub',
      password: MASK,
      database: 'hub',
    });
    expect(shown.metrics.token).toBe(MASK);
    expect(shown.redis.password).toBeUndefined();
    expect(shown.redis.host).toBe('cache');
    expect(shown.server).toMatchObject({ publicUrl: 'https://hub.example.com', port: 8790 });
    const json = JSON.stringify(shown);
    for (const hidden of ['db.internal', 's3cret', 'quiet', 'a-metrics-token-of-16+'])
      expect(json).not.toContain(hidden);
  });

  it('masks a key that reads like a credential in a section no schema marks', () => {
    const loose = z.object({ extra: z.record(z.string(), z.unknown()) });
    const shown = maskConfig(
      { extra: { apiToken: 'abc', dsn: 'x://y', tokenTtlDays: 5, plain: 'ok' } },
      loose,
      new Set(),
    );
    expect(shown.extra).toEqual({ apiToken: MASK, dsn: MASK, tokenTtlDays: 5, plain: 'ok' });
  });
});

describe('GET /admin/config', () => {
  let dir: string;
  let file: string;
  const BASE = { logging: { level: 'silent' }, server: { host: '127.0.0.1', port: 8788 } };
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hub-config-view-'));
    file = join(dir, 'server.yaml');
    await writeFile(file, stringify(BASE));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const t = useTestHub(EMBEDDED_DRIVER, () => ({
    config: { ...BASE, multitenancy: { enabled: true } },
    configPath: file,
    env: { HUB_NAME_HOST: 'secret-host.internal', LLM_KEY: 'sk-very-secret', LOG_AT: 'silent' },
  }));

  it('answers the running configuration, defaults included, never cached', async () => {
    const res = await t.request('GET', '/admin/config');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body.config.server).toMatchObject({ host: '127.0.0.1', port: 8788 });
    expect(res.body.config.console).toMatchObject({ enabled: true, idleMinutes: 30 });
    expect(res.body.config.db.driver).toBe('sqlite');
  });

  it('masks what a reload read from the environment, also in a section it partly kept, and the LLM key', async () => {
    await writeFile(
      file,
      stringify({
        ...BASE,
        logging: { level: '${LOG_AT}' },
        multitenancy: { enabled: true },
        server: { ...BASE.server, host: '${HUB_NAME_HOST}' },
        llm: { providers: { openai: { apiKey: '${LLM_KEY}' } } },
      }),
    );
    expect((await t.request('POST', '/admin/config/reload')).status).toBe(200);
    const res = await t.request('GET', '/admin/config');
    // A section taken whole from the file, and one partly kept (host needs a restart).
    expect(res.body.config.logging.level).toBe(MASK);
    expect(res.body.config.server.host).toBe(MASK);
    expect(res.body.config.llm.providers.openai.apiKey).toBe(MASK);
    expect(res.text).not.toContain('secret-host.internal');
    expect(res.text).not.toContain('sk-very-secret');
  });

  it("refuses members and another tenant's administrators", async () => {
    const member = await t.createUser({ role: 'user' });
    expect((await t.request('GET', '/admin/config', { token: member.token })).status).toBe(403);
    await t.hub.identity.tenants.create('elsewhere', 'Elsewhere');
    const theirs = await t.createUser({ role: 'admin' }, 'elsewhere');
    const res = await t.request('GET', '/admin/config', {
      token: theirs.token,
      tenant: 'elsewhere',
    });
    expect([res.status, res.body.error]).toEqual([403, OPERATOR_ONLY]);
    // Reloading the hub's file is the operator's too.
    const reload = await t.request('POST', '/admin/config/reload', {
      token: theirs.token,
      tenant: 'elsewhere',
    });
    expect([reload.status, reload.body.error]).toEqual([403, OPERATOR_ONLY]);
    expect((await t.request('POST', '/admin/config/reload')).status).toBe(200);
  });
});
