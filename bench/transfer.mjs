#!/usr/bin/env node
/**
 * Export and import time and file size for a data set like the load bench's: 50 collections,
 * 20 folders, 500 saved requests and 200 comments (plus the accounts, threads and notices they
 * bring). Populated through the HTTP API of an in-process hub on the embedded database, exported,
 * imported into a fresh embedded database, and — with HUB_TEST_PG_URL / HUB_TEST_MYSQL_URL set —
 * into PostgreSQL and MySQL too.
 *
 *   node --import tsx bench/transfer.mjs
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateConfig } from '../kernel/config/load.ts';
import { createHub } from '../kernel/hub.ts';
import { collectTables } from '../kernel/schema.ts';
import { silentLogger } from '../kernel/log.ts';
import { createDriver } from '../kernel/storage/create-driver.ts';
import { exportHub, importHub } from '../kernel/storage/transfer.ts';
import { createMemoryThrottleStore } from '../kernel/throttle/memory.ts';
import { plugins } from '../plugins/index.ts';
import { createTestDatabase } from '../test/helpers/databases.ts';

const sections = Object.fromEntries(
  plugins.filter((p) => p.config).map((p) => [p.config.section, p.config.schema]),
);
const config = (db) => validateConfig({ logging: { level: 'silent' }, db }, sections, {});
const tables = collectTables(plugins);
const open = async (db) => {
  const driver = await createDriver(db);
  const hub = await createHub({
    config: config(db),
    plugins,
    driver,
    throttle: createMemoryThrottleStore(),
    log: silentLogger,
    migrate: true,
  });
  return { driver, hub };
};

const dir = await mkdtemp(join(tmpdir(), 'hub-transfer-'));
const drops = [];
try {
  const source = await open({ driver: 'sqlite', path: join(dir, 'source.db') });
  const store = source.driver.forTenant('__default__');
  const admin = await source.hub.identity.users.create(store, { name: 'admin', role: 'admin' });
  const { secret } = await source.hub.identity.tokens.issue(store, admin, 'bench');
  const bob = await source.hub.identity.users.create(store, {
    name: 'bob',
    role: 'user',
    collectionAccess: ['*'],
  });
  const bobToken = (await source.hub.identity.tokens.issue(store, bob, 'bench')).secret;
  const call = async (method, path, body, token = secret) => {
    const res = await source.hub.app.request(path, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  process.stderr.write('populating…\n');
  const collections = [];
  for (let i = 0; i < 50; i++)
    collections.push(await call('POST', '/collections', { name: `Collection ${i}` }));
  const folders = [];
  for (let i = 0; i < 20; i++)
    folders.push(
      await call('POST', `/collections/${collections[i % 50].id}/folders`, { name: `Folder ${i}` }),
    );
  const requests = [];
  for (let i = 0; i < 500; i++) {
    const folder = i < 100 ? folders[i % 20] : null;
    const collectionId = folder ? collections[(i % 20) % 50].id : collections[i % 50].id;
    requests.push(
      await call('POST', `/collections/${collectionId}/requests`, {
        name: `Request ${i}`,
        ...(folder ? { folderId: folder.id } : {}),
      }),
    );
  }
  for (let i = 0; i < 200; i++)
    await call(
      'POST',
      `/requests/${requests[i % 100].id}/discussions`,
      { body: `Comment ${i} on this request` },
      i % 2 ? bobToken : secret,
    );

  const file = join(dir, 'hub.json');
  const out = createWriteStream(file);
  let started = performance.now();
  const exported = await exportHub({
    driver: source.driver,
    tables,
    hubVersion: 'bench',
    write: async (chunk) => void (out.write(chunk) || (await once(out, 'drain'))),
  });
  out.end();
  await once(out, 'close');
  const exportMs = performance.now() - started;
  const size = (await stat(file)).size;
  await source.hub.close();
  await source.driver.close();
  const rows = [
    `| export (embedded) | ${exported.rowCount} rows | ${Math.round(exportMs)} ms | ${(size / 1024).toFixed(0)} KiB |`,
  ];

  const targets = [['embedded', { driver: 'sqlite', path: join(dir, 'target.db') }]];
  for (const [kind, variable] of [
    ['postgres', 'HUB_TEST_PG_URL'],
    ['mysql', 'HUB_TEST_MYSQL_URL'],
  ]) {
    if (!process.env[variable]) continue;
    const database = await createTestDatabase(kind);
    drops.push(database.drop);
    targets.push([kind, database.config]);
  }
  for (const [name, db] of targets) {
    const target = await open(db);
    await target.hub.close();
    started = performance.now();
    const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
    const imported = await importHub({
      driver: target.driver,
      tables,
      lines,
      reprovision: async () => undefined,
    });
    const importMs = performance.now() - started;
    started = performance.now();
    await exportHub({
      driver: target.driver,
      tables,
      hubVersion: 'bench',
      write: async () => undefined,
    });
    const reExportMs = performance.now() - started;
    await target.driver.close();
    rows.push(
      `| import into ${name} | ${imported.rowCount} rows | ${Math.round(importMs)} ms | (export from it: ${Math.round(reExportMs)} ms) |`,
    );
  }
  console.log('| step | rows | time | file |\n|---|---|---|---|');
  for (const row of rows) console.log(row);
  console.log(JSON.stringify(exported.tables));
} finally {
  for (const drop of drops) await drop().catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
}
