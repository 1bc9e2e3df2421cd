/**
 * Export and import: a populated hub goes round a chain of every configured driver (embedded →
 * PostgreSQL → MySQL → Firestore → embedded, as the run has them). After each hop every table's raw
 * rows and the HTTP listings, read with the source's own tokens, are the same as before.
 */
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../kernel/config/load.ts';
import { createHub, type Hub } from '../../kernel/hub.ts';
import { collectTables } from '../../kernel/schema.ts';
import { DEFAULT_TENANT_ID } from '../../kernel/identity/tenants.ts';
import { silentLogger } from '../../kernel/log.ts';
import type { StorageDriver } from '../../kernel/storage/contract.ts';
import type { Table } from '../../kernel/storage/table.ts';
import { exportHub } from '../../kernel/storage/transfer.ts';
import {
  ImportFormatError,
  importHub,
  ImportRefusedError,
} from '../../kernel/storage/transfer-import.ts';
import { createMemoryThrottleStore } from '../../kernel/throttle/memory.ts';
import { llmUsageTable } from '../../plugins/llm-proxy/tables.ts';
import { ssoKeysTable, ssoUsedStatesTable } from '../../plugins/sso/tables.ts';
import { insertDeviceKey } from '../helpers/rows.ts';
import { plugins } from '../../plugins/index.ts';
import {
  allDrivers,
  openTestDriver,
  type DriverKind,
  type TestDriver,
} from '../helpers/drivers.ts';
import { startTestHub, uniqueName, type TestHub } from '../helpers/hub.ts';

const CONFIG = { logging: { level: 'silent' }, multitenancy: { enabled: true } };
const tables = collectTables(plugins);
const sections = Object.fromEntries(
  plugins.filter((p) => p.config).map((p) => [p.config!.section, p.config!.schema]),
);

/** A hub on `driver` as `start` would open it (no test admin added), migrating when asked. */
async function openHub(driver: StorageDriver): Promise<Hub> {
  return createHub({
    config: validateConfig(CONFIG, sections, {}),
    plugins,
    driver,
    throttle: createMemoryThrottleStore(),
    log: silentLogger,
    migrate: true,
  });
}

/** What `workspace-hub migrate` leaves: the schema, the default tenant and its system account. */
async function migrated(kind: DriverKind): Promise<TestDriver> {
  const db = await openTestDriver(kind);
  await (await openHub(db.driver)).close();
  return db;
}

/** Every row of every exported table, sorted by id in JS (databases collate ids differently). */
async function snapshot(driver: StorageDriver): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const table of tables.filter((t) => t.exported)) {
    const rows = (await driver
      .unscoped()
      .table(table as Table)
      .find({})) as { id: string }[];
    out[table.name] = rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }
  return out;
}

async function exportToText(driver: StorageDriver, tenantId?: string): Promise<string> {
  const chunks: string[] = [];
  await exportHub({
    driver,
    tables,
    hubVersion: 'test',
    tenantId,
    write: async (chunk) => void chunks.push(chunk),
  });
  return chunks.join('');
}

/** Imports `text` from a real file read with readline, as the CLI reads it. */
async function importText(driver: StorageDriver, text: string, batchSize?: number) {
  const dir = await mkdtemp(join(tmpdir(), 'hub-import-'));
  try {
    await writeFile(join(dir, 'hub.json'), text);
    return await importHub({
      driver,
      tables,
      lines: createInterface({
        input: createReadStream(join(dir, 'hub.json')),
        crlfDelay: Infinity,
      }),
      ...(batchSize ? { batchSize } : {}),
      reprovision: async () => (await openHub(driver)).close(),
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

interface Fixture {
  adminToken: string;
  userToken: string;
  collectionId: string;
  requestId: string;
  otherTenantToken: string;
}

/** Fills a hub through the API (and the two tables whose writers need outside services directly). */
async function populate(t: TestHub): Promise<Fixture> {
  const ok = async (
    method: string,
    path: string,
    body?: unknown,
    token?: string,
    tenant?: string,
  ) => {
    const res = await t.request(method, path, {
      ...(body === undefined ? {} : { body }),
      ...(token ? { token } : {}),
      ...(tenant ? { tenant } : {}),
    });
    expect([200, 201], `${method} ${path}: ${res.status} ${res.text}`).toContain(res.status);
    return res.body;
  };
  const user = await t.createUser({
    name: uniqueName('bob'),
    role: 'user',
    collectionAccess: ['*'],
  });
  const collection = await ok('POST', '/collections', { name: 'Payments API' });
  const folder = await ok('POST', `/collections/${collection.id}/folders`, { name: 'Refunds' });
  const request = await ok('POST', `/collections/${collection.id}/requests`, {
    name: 'Create refund',
    folderId: folder.id,
  });
  await ok('POST', `/collections/${collection.id}/requests`, { name: 'List refunds ✓ ünïcode' });
  await ok('POST', '/environments', { name: 'staging' });
  const comment = await ok('POST', `/requests/${request.id}/discussions`, {
    body: 'first comment',
  });
  await ok(
    'POST',
    `/discussion-comments/${comment.id}/replies`,
    { body: 'a reply from bob' },
    user.token,
  );
  await ok('POST', `/requests/${request.id}/discussions`, { body: 'another thread' }, user.token);
  await ok('PUT', '/auth/profile/avatar', {
    imageDataUrl:
      'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  });
  await ok('POST', '/admin/invited-users', { name: uniqueName('carol'), role: 'user' });
  const now = new Date().toISOString();
  const store = t.hub.driver().forTenant(DEFAULT_TENANT_ID);
  await insertDeviceKey(store, user.id);
  await store.table(llmUsageTable).insert({
    id: `${user.id}:2026-11`,
    userId: user.id,
    period: '2026-11',
    promptTokens: 120,
    completionTokens: 30,
    totalTokens: 150,
    steps: 2,
    turnLeaseUntil: null,
    updatedAt: now,
  });
  await t.hub.identity.tenants.create('acme', 'Acme Corp');
  const other = await t.createUser(
    { name: uniqueName('ann'), role: 'user', collectionAccess: ['*'] },
    'acme',
  );
  await ok('POST', '/collections', { name: 'Acme collection' }, other.token, 'acme');
  return {
    adminToken: t.adminToken,
    userToken: user.token,
    collectionId: collection.id,
    requestId: request.id,
    otherTenantToken: other.token,
  };
}

/** What the API shows, read with the source's tokens (the same secrets must keep working). */
async function listings(hub: Hub, f: Fixture): Promise<Record<string, unknown>> {
  const get = async (path: string, token: string, tenant?: string) => {
    const res = await hub.app.request(path, {
      headers: { authorization: `Bearer ${token}`, ...(tenant ? { 'x-hub-tenant': tenant } : {}) },
    });
    const text = await res.text();
    return {
      status: res.status,
      body: res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text.length,
    };
  };
  return {
    session: await get('/auth/session', f.adminToken),
    users: await get('/admin/users', f.adminToken),
    collections: await get('/collections', f.adminToken),
    folders: await get(`/collections/${f.collectionId}/folders`, f.adminToken),
    requests: await get(`/collections/${f.collectionId}/requests`, f.adminToken),
    environments: await get('/environments', f.adminToken),
    discussions: await get(`/requests/${f.requestId}/discussions`, f.userToken),
    notices: await get('/notices', f.adminToken),
    bobSession: await get('/auth/session', f.userToken),
    invitations: await get('/admin/invitations', f.adminToken),
    acme: await get('/collections', f.otherTenantToken, 'acme'),
  };
}

const kinds = allDrivers();
/** embedded → PostgreSQL → MySQL → Firestore → embedded (as configured); one driver: onto itself. */
const hops: [DriverKind, DriverKind][] =
  kinds.length === 1
    ? [[kinds[0]!, kinds[0]!]]
    : kinds.map((kind, i) => [kind, kinds[(i + 1) % kinds.length]!]);

describe('export and import between drivers', () => {
  const opened: TestDriver[] = [];
  let fixture: Fixture;
  let current: StorageDriver;
  let source: TestHub;

  beforeAll(async () => {
    const first = await migrated(kinds[0]!);
    opened.push(first);
    source = await startTestHub({ driver: first.driver, config: CONFIG });
    fixture = await populate(source);
    current = first.driver;
  }, 120_000);
  afterAll(async () => {
    await source?.close();
    for (const db of opened) await db.cleanup().catch(() => undefined);
  });

  it('the populated hub has rows in every table a feature writes to', async () => {
    const rows = await snapshot(current);
    for (const name of [
      'tenants',
      'users',
      'api_tokens',
      'user_invitations',
      'collections',
      'environments',
      'folders',
      'requests',
      'discussion_comments',
      'discussion_thread_subscriptions',
      'notices',
      'avatars',
      'device_keys',
      'llm_usage',
    ]) {
      expect(rows[name]?.length, name).toBeGreaterThan(0);
    }
  });

  it.each(hops)(
    '%s → %s keeps every row, id and timestamp, and the same tokens see the same listings',
    async (from, to) => {
      const before = await snapshot(current);
      const text = await exportToText(current);
      const header = JSON.parse(text.split('\n')[0]!.replace(/,"tables":\[$/, '}'));
      expect(header).toMatchObject({ format: 'workspace-hub-export', version: 1, tenant: null });
      JSON.parse(text); // one valid JSON document

      const target = await migrated(to);
      opened.push(target);
      // Small batches, so a hop runs many transactions rather than one.
      const result = await importText(target.driver, text, 7);
      expect(result.rowCount).toBe(
        Object.values(before).reduce((sum, rows) => sum + rows.length, 0),
      );
      expect(await snapshot(target.driver)).toEqual(before);

      const fromHub = await openHub(current);
      const toHub = await openHub(target.driver);
      try {
        const expected = await listings(fromHub, fixture);
        expect((expected.session as { status: number }).status).toBe(200);
        expect(
          ((expected.discussions as { body: { comments?: unknown[] } }).body.comments ?? []).length,
        ).toBeGreaterThan(0);
        expect(await listings(toHub, fixture)).toEqual(expected);
      } finally {
        await fromHub.close();
        await toHub.close();
      }
      current = target.driver;
      expect(from).not.toBe(undefined);
    },
    180_000,
  );

  it('exports one tenant alone with --tenant semantics: its tenant row and rows only', async () => {
    const text = await exportToText(current, 'acme');
    const doc = JSON.parse(text) as {
      tenant: string;
      tables: { table: string; rows: { id: string; tenantId?: string }[] }[];
    };
    expect(doc.tenant).toBe('acme');
    const byName = Object.fromEntries(doc.tables.map((t) => [t.table, t.rows]));
    expect(byName.tenants!.map((row) => row.id)).toEqual(['acme']);
    expect(byName.hub_state).toBeUndefined();
    expect(byName.collections!.map((row) => row.tenantId)).toEqual(['acme']);
    expect(byName.users!.every((row) => row.tenantId === 'acme')).toBe(true);
  });

  it('refuses a database that already holds data, naming what it found, and changes nothing', async () => {
    const text = await exportToText(current);
    const busy = await migrated(kinds[0]!);
    opened.push(busy);
    const hub = await startTestHub({ driver: busy.driver, config: CONFIG });
    await hub.close();
    const before = await snapshot(busy.driver);
    const error = await importText(busy.driver, text).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImportRefusedError);
    expect((error as Error).message).toMatch(
      /already holds data \(users: 1 row\(s\) besides the system accounts, api_tokens: 1 row\(s\), audit_events: 2 row\(s\)\)/,
    );
    expect(await snapshot(busy.driver)).toEqual(before);
  });

  it('a cut-off file fails with a clear message and leaves the database as migrate left it', async () => {
    const text = await exportToText(current);
    const lines = text.split('\n');
    const truncated = lines.slice(0, Math.floor(lines.length * 0.7)).join('\n');
    const target = await migrated(kinds[0]!);
    opened.push(target);
    const fresh = await snapshot(target.driver);
    const error = await importText(target.driver, truncated, 5).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImportFormatError);
    expect((error as Error).message).toContain('ends early');
    const after = await snapshot(target.driver);
    // Same shape as after migrate: the default tenant and one system account, nothing else.
    expect(Object.fromEntries(Object.entries(after).map(([k, v]) => [k, v.length]))).toEqual(
      Object.fromEntries(Object.entries(fresh).map(([k, v]) => [k, v.length])),
    );
    expect((after.users as { system: boolean }[]).every((user) => user.system)).toBe(true);
    // And the operator can run the import again.
    await importText(target.driver, text);
    expect((await snapshot(target.driver)).collections).toEqual(
      (await snapshot(current)).collections,
    );
  }, 120_000);

  it("skips the rows of a table a migration dropped, in an older hub's export", async () => {
    const text = await exportToText(current);
    const declared = Number(/"rowCount":(\d+)\}\n$/.exec(text)![1]);
    const row = (id: string) =>
      JSON.stringify({
        id,
        tenantId: DEFAULT_TENANT_ID,
        keyHash: id,
        stateHash: id,
        expiresAt: '2026-01-01T00:00:00.000Z',
      });
    // `sso_logins`, which hubs before the signed sign-in cookie exported.
    const older = text.replace(
      `\n],"rowCount":${declared}}\n`,
      `,\n{"table":"sso_logins","rows":[\n${row('a')},\n${row('b')}\n]}\n],"rowCount":${declared + 2}}\n`,
    );
    const target = await migrated(kinds[0]!);
    opened.push(target);
    const result = await importHub({
      driver: target.driver,
      tables,
      retired: ['sso_logins'],
      lines: (async function* () {
        yield* older.split('\n');
      })(),
      reprovision: async () => (await openHub(target.driver)).close(),
    });
    expect(result.rowCount).toBe(declared);
    expect(await snapshot(target.driver)).toEqual(await snapshot(current));
  });

  it("leaves out single sign-on's cookie key and used states, and reads past them in an older export", async () => {
    const store = current.forTenant(DEFAULT_TENANT_ID);
    const at = '2026-01-01T00:00:00.000Z';
    await store.table(ssoKeysTable).insert({ id: 'cookie', secret: 'k'.repeat(43), createdAt: at });
    await store
      .table(ssoUsedStatesTable)
      .insert({ id: 'a'.repeat(64), tenant: DEFAULT_TENANT_ID, expiresAt: at });
    try {
      const text = await exportToText(current);
      expect(text).not.toContain('"table":"sso_keys"');
      expect(text).not.toContain('"table":"sso_used_states"');
      expect(text).not.toContain('k'.repeat(43));
      // An export of a hub before this one carried the key: an import reads past it.
      const declared = Number(/"rowCount":(\d+)\}\n$/.exec(text)![1]);
      const key = JSON.stringify({
        id: 'cookie',
        tenantId: DEFAULT_TENANT_ID,
        secret: 'k'.repeat(43),
        createdAt: at,
      });
      const older = text.replace(
        `\n],"rowCount":${declared}}\n`,
        `,\n{"table":"sso_keys","rows":[\n${key}\n]}\n],"rowCount":${declared + 1}}\n`,
      );
      const target = await migrated(kinds[0]!);
      opened.push(target);
      expect((await importText(target.driver, older)).rowCount).toBe(declared);
      expect(await target.driver.forTenant(DEFAULT_TENANT_ID).table(ssoKeysTable).find()).toEqual(
        [],
      );
    } finally {
      await store.table(ssoKeysTable).deleteWhere({});
      await store.table(ssoUsedStatesTable).deleteWhere({});
    }
  });

  it('refuses a file that is not an export', async () => {
    const target = await migrated(kinds[0]!);
    opened.push(target);
    const error = await importText(target.driver, '{"hello":"world"}\n').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImportFormatError);
    expect((error as Error).message).toContain('not a workspace-hub export file');
  });
});
