/**
 * Reloads that replace connections, on real services (HUB_TEST_PG_URL, HUB_TEST_REDIS_URL):
 * switching PostgreSQL databases while requests keep coming (none fails, later writes land in the
 * new database), a database that cannot be opened (the old one keeps serving), and Redis switched
 * on, failing, and off again with the notice fan-out following. Skipped only outside CI.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { validateConfig } from '../../kernel/config/load.ts';
import { createHub, type Hub } from '../../kernel/hub.ts';
import { apiTokensTable, usersTable } from '../../kernel/identity/tables.ts';
import { DEFAULT_TENANT_ID } from '../../kernel/identity/tenants.ts';
import { silentLogger } from '../../kernel/log.ts';
import { createDriver } from '../../kernel/storage/create-driver.ts';
import { runMigrations } from '../../kernel/storage/migrate.ts';
import { plugins } from '../../plugins/index.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/databases.ts';
import { uniqueName } from '../helpers/hub.ts';
import { PG_URL_VAR, redisSection, REDIS_URL_VAR, requireService } from '../helpers/services.ts';
import { eventually } from '../helpers/async.ts';

const sections = Object.fromEntries(
  plugins.flatMap((p) => (p.config ? [[p.config.section, p.config.schema]] : [])),
);

const redis = (port?: number) =>
  redisSection({ connectTimeoutMillis: 500, ...(port ? { port } : {}) });

describe.runIf(requireService(PG_URL_VAR) && requireService(REDIS_URL_VAR))(
  'reloads that replace connections (postgres, redis)',
  () => {
    let a: TestDatabase;
    let b: TestDatabase;
    let dir: string;
    let file: string;
    let hub: Hub;
    let token: string;
    const base = { logging: { level: 'silent' } };
    const write = (config: Record<string, unknown>) =>
      writeFile(file, stringify({ ...base, ...config }));
    const request = (method: string, path: string, body?: unknown) =>
      hub.app.request(path, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
    const reload = async () =>
      (await (await request('POST', '/admin/config/reload')).json()) as {
        sections: { section: string; status: string; error?: string }[];
      };
    const status = (body: Awaited<ReturnType<typeof reload>>, section: string) =>
      body.sections.find((s) => s.section === section);

    beforeAll(async () => {
      [a, b] = await Promise.all([createTestDatabase('postgres'), createTestDatabase('postgres')]);
      dir = await mkdtemp(join(tmpdir(), 'hub-reload-conn-'));
      file = join(dir, 'server.yaml');
      await write({ db: a.config });
      const config = validateConfig({ ...base, db: a.config }, sections, {});
      hub = await createHub({
        config,
        configPath: file,
        plugins,
        log: silentLogger,
        migrate: true,
        clientIp: () => '203.0.113.9',
      });
      // The same admin and token in both databases, so requests authenticate before and after the switch.
      const store = hub.driver().forTenant(DEFAULT_TENANT_ID);
      const admin = await hub.identity.users.create(store, {
        name: uniqueName('admin'),
        role: 'admin',
      });
      const issued = await hub.identity.tokens.issue(store, admin, 'reload');
      token = issued.secret;
      const other = await createDriver(b.config);
      await runMigrations(other, hub.migrations);
      await other.forTenant(DEFAULT_TENANT_ID).table(usersTable).insert(admin);
      await other.forTenant(DEFAULT_TENANT_ID).table(apiTokensTable).insert(issued.token);
      await other.close();
    });
    afterAll(async () => {
      await hub?.close();
      await Promise.all([a?.drop(), b?.drop()]);
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it('switches the database while a load of requests runs, and no request fails', async () => {
      let running = true;
      const failures: string[] = [];
      let done = 0;
      const worker = async () => {
        while (running) {
          // Answers from the read cache involve no I/O at all: without a turn of the event loop per
          // round, these in-process clients would starve the reload (and the timer) they wait for.
          await yieldToEventLoop();
          for (const path of ['/auth/session', '/collections', '/llm/usage']) {
            const res = await request('GET', path);
            if (res.status !== 200 && !(path === '/llm/usage' && res.status === 503))
              failures.push(`${path} ${res.status} ${await res.text()}`);
            else done += 1;
          }
        }
      };
      const workers = Array.from({ length: 6 }, worker);
      await new Promise((resolve) => setTimeout(resolve, 150));
      await write({ db: b.config });
      const result = await reload();
      await new Promise((resolve) => setTimeout(resolve, 300));
      running = false;
      await Promise.all(workers);
      expect(status(result, 'db')).toEqual({ section: 'db', status: 'reloaded' });
      expect(failures).toEqual([]);
      expect(done).toBeGreaterThan(50);
      expect(hub.config().db).toMatchObject({
        database: (b.config as { database: string }).database,
      });
      // A write after the switch lands in the new database.
      const created = await (
        await request('POST', '/admin/users', { name: uniqueName(), role: 'user' })
      ).json();
      const check = await createDriver(b.config);
      expect(
        await check.forTenant(DEFAULT_TENANT_ID).table(usersTable).get(created.user.id),
      ).not.toBeNull();
      await check.close();
    });

    it('keeps serving on the old database when the new one cannot be opened', async () => {
      await write({ db: { ...b.config, database: 'hub_test_does_not_exist' } });
      const result = await reload();
      expect(status(result, 'db')).toMatchObject({
        status: 'failed',
        error: expect.stringContaining('hub_test_does_not_exist'),
      });
      expect((await request('GET', '/auth/session')).status).toBe(200);
      expect(hub.config().db).toMatchObject({
        database: (b.config as { database: string }).database,
      });
      await write({ db: b.config });
    });

    it('switches Redis on, keeps the old store when the new one is unreachable, and switches it off', async () => {
      await write({ db: b.config, redis: redis() });
      expect(status(await reload(), 'redis')).toEqual({ section: 'redis', status: 'reloaded' });
      // The notice stream now depends on the Redis subscriber, which becomes ready shortly.
      await eventually(async () => {
        const res = await request('GET', '/notices/stream');
        await res.body?.cancel();
        return res.status === 200;
      }, 5000);
      await write({ db: b.config, redis: redis(1) });
      expect(status(await reload(), 'redis')).toMatchObject({
        status: 'failed',
        error: expect.stringMatching(/unavailable/i),
      });
      expect((await request('GET', '/auth/session')).status).toBe(200);
      await write({ db: b.config });
      expect(status(await reload(), 'redis')).toEqual({ section: 'redis', status: 'reloaded' });
      expect((await request('GET', '/auth/session')).status).toBe(200);
    });
  },
);
