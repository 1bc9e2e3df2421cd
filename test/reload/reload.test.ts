/**
 * `POST /admin/config/reload` and SIGHUP on sections that need no second database: a hub without a
 * file, an invalid or missing file (nothing changes), a host change (restart-required), and the
 * `llm` and `plugins` sections applied live.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { silentLogger } from '../../kernel/log.ts';
import { handleSignals, type RunningServer } from '../../kernel/runtime/node.ts';
import { EMBEDDED_DRIVER } from '../helpers/drivers.ts';
import { useTestHub } from '../helpers/hub.ts';
import { llmSection } from '../helpers/llm-provider.ts';

const BASE = { logging: { level: 'silent' }, server: { host: '127.0.0.1', port: 8788 } };
const statuses = (body: { sections: { section: string; status: string }[] }) =>
  Object.fromEntries(body.sections.map((s) => [s.section, s.status]));

describe('config reload', () => {
  let dir: string;
  let file: string;
  const write = (config: Record<string, unknown>) =>
    writeFile(file, stringify({ ...BASE, ...config }));

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hub-reload-'));
    file = join(dir, 'server.yaml');
    await write({});
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const t = useTestHub(EMBEDDED_DRIVER, () => ({ config: BASE, configPath: file }));

  const reload = () => t.request('POST', '/admin/config/reload');

  it('reports every known section as unchanged when the file did not change', async () => {
    const res = await reload();
    expect(res.status).toBe(200);
    expect(res.body.sections).toEqual(
      ['db', 'redis', 'llm', 'plugins', 'collaboration', 'server'].map((section) => ({
        section,
        status: 'unchanged',
      })),
    );
  });

  it('answers 400 with fatalError for an invalid file and changes nothing', async () => {
    await write({ llm: llmSection(), collaboration: { e2ee: 'yes' } });
    const res = await reload();
    expect(res.status).toBe(400);
    expect(res.body.fatalError).toContain('collaboration.e2ee');
    expect(res.body.error).toBe(res.body.fatalError);
    expect(res.body.sections).toEqual([]);
    expect((await t.request('GET', '/admin/llm/models')).status).toBe(503);
    await writeFile(file, 'server: [unclosed');
    expect((await reload()).body.fatalError).toMatch(/invalid YAML/);
    await write({ llm: { providers: {} } });
    expect((await reload()).body.fatalError).toContain('llm.providers');
  });

  it('answers 400 when the file has disappeared, and serves on', async () => {
    await rm(file);
    const res = await reload();
    expect([res.status, res.body.fatalError]).toEqual([400, `Config file not found: ${file}`]);
    expect((await t.request('GET', '/auth/session')).status).toBe(200);
    await write({});
  });

  it('applies the llm and plugins sections live and turns them off again', async () => {
    await write({ llm: llmSection(), plugins: { catalogs: ['https://c.example/catalog.json'] } });
    const res = await reload();
    expect(statuses(res.body)).toMatchObject({
      llm: 'reloaded',
      plugins: 'reloaded',
      db: 'unchanged',
      server: 'unchanged',
    });
    expect((await t.request('GET', '/admin/llm/models')).status).toBe(200);
    expect((await t.request('GET', '/plugins/sources')).body.catalogs).toEqual([
      'https://c.example/catalog.json',
    ]);
    await write({});
    expect(statuses((await reload()).body)).toMatchObject({ llm: 'reloaded', plugins: 'reloaded' });
    expect((await t.request('GET', '/admin/llm/models')).status).toBe(503);
  });

  it('reports a host or port change as restart-required and keeps the running values', async () => {
    await write({ server: { host: '0.0.0.0', port: 9999, trustProxy: true } });
    const res = await reload();
    const server = res.body.sections.find((s: any) => s.section === 'server');
    expect(server).toEqual({
      section: 'server',
      status: 'restart-required',
      error: expect.stringContaining('restart'),
    });
    expect(t.hub.config().server).toMatchObject({
      host: '127.0.0.1',
      port: 8788,
      trustProxy: true,
    });
    await write({});
    await reload();
  });

  it('reports every section the hub runs with, a metrics change as reloaded, and applies it live', async () => {
    const unchanged = await t.hub.reload();
    if (!unchanged.ok) throw new Error(unchanged.fatalError);
    const reported = [...unchanged.sections, ...unchanged.others].map((r) => r.section);
    // Every section the hub runs with (optional ones left out of the file are absent there).
    expect(reported).toEqual(expect.arrayContaining(Object.keys(t.hub.config())));

    await write({ metrics: { enabled: false } });
    const changed = await t.hub.reload();
    if (!changed.ok) throw new Error(changed.fatalError);
    expect(changed.others.find((r) => r.section === 'metrics')).toEqual({
      section: 'metrics',
      status: 'reloaded',
    });
    expect(t.hub.config().metrics.enabled).toBe(false);
    await write({});
    await reload();
  });

  it('is for admins only', async () => {
    const user = await t.createUser({});
    expect((await t.request('POST', '/admin/config/reload', { token: user.token })).status).toBe(
      403,
    );
  });

  it('reloads on SIGHUP through the running server', async () => {
    let calls = 0;
    const running = {
      reload: async () => void (calls += 1),
      stop: async () => {},
    } as unknown as RunningServer;
    const dispose = handleSignals(running, silentLogger, () => {});
    try {
      process.emit('SIGHUP');
      expect(calls).toBe(1);
    } finally {
      dispose();
    }
  });
});

describe('config reload without a config file', () => {
  const t = useTestHub(EMBEDDED_DRIVER);

  it('answers 400 explaining that the hub runs on built-in defaults', async () => {
    const res = await t.request('POST', '/admin/config/reload');
    expect(res.status).toBe(400);
    expect(res.body.fatalError).toMatch(/without a configuration file/);
  });
});
