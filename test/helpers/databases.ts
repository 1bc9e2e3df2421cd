/**
 * Databases for tests: a fresh, uniquely named database per call on PostgreSQL
 * (`HUB_TEST_PG_URL`) and MySQL/MariaDB (`HUB_TEST_MYSQL_URL`), dropped on cleanup; PGlite in
 * memory from a snapshot made once per run (a fresh initdb costs 6–12 s, a snapshot load ~1 s).
 */
import { readFile } from 'node:fs/promises';
import type { DbConfig } from '../../kernel/storage/config.ts';
import { createFirestoreTestDatabase, FIRESTORE_HOST_VAR } from './firestore.ts';

export type DriverKind = 'pglite' | 'postgres' | 'mysql' | 'firestore';

export const PGLITE_SNAPSHOT = new URL('../../node_modules/.cache/workspace-hub-test/pglite-snapshot.tar', import.meta.url);

const urls: Record<Exclude<DriverKind, 'pglite'>, string> = { postgres: 'HUB_TEST_PG_URL', mysql: 'HUB_TEST_MYSQL_URL', firestore: FIRESTORE_HOST_VAR };

/** Whether the driver's service is configured; under CI a missing variable is an error. */
export function driverAvailable(kind: DriverKind): boolean {
  if (kind === 'pglite') return true;
  const set = !!process.env[urls[kind]];
  if (!set && process.env.CI === 'true') throw new Error(`CI=true but ${urls[kind]} is not set`);
  return set;
}

function uniqueDbName(): string {
  return `hub_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
}

export interface TestDatabase {
  config: DbConfig;
  drop(): Promise<void>;
}

/** A new empty database on a server; `drop()` removes it. */
export async function createTestDatabase(kind: Exclude<DriverKind, 'pglite'>): Promise<TestDatabase> {
  if (kind === 'firestore') return createFirestoreTestDatabase();
  const url = new URL(process.env[urls[kind]]!);
  const name = uniqueDbName();
  const common = {
    host: url.hostname,
    user: decodeURIComponent(url.username) || (kind === 'postgres' ? 'postgres' : 'root'),
    password: decodeURIComponent(url.password),
    database: name,
    max: 10,
    connectionTimeoutMillis: 10_000,
  };
  if (kind === 'postgres') {
    const { default: pg } = await import('pg');
    const admin = async (statement: string) => {
      const client = new pg.Client({ connectionString: url.toString() });
      await client.connect();
      try {
        await client.query(statement);
      } finally {
        await client.end();
      }
    };
    await admin(`CREATE DATABASE ${name}`);
    return {
      config: { driver: 'postgres', port: Number(url.port || 5432), ...common },
      drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
    };
  }
  const mysql = await import('mysql2/promise');
  const admin = async (statement: string) => {
    const conn = await mysql.createConnection({ host: url.hostname, port: Number(url.port || 3306), user: common.user, password: common.password });
    try {
      await conn.query(statement);
    } finally {
      await conn.end();
    }
  };
  await admin(`CREATE DATABASE ${name} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  return {
    config: { driver: 'mysql', port: Number(url.port || 3306), ...common },
    drop: () => admin(`DROP DATABASE IF EXISTS ${name}`),
  };
}

/** Makes the PGlite snapshot file if it does not exist yet (called from the global setup). */
export async function ensurePgliteSnapshot(): Promise<void> {
  const { mkdir, writeFile, stat } = await import('node:fs/promises');
  const { PGlite } = await import('@electric-sql/pglite');
  const manifest = new URL('../../node_modules/@electric-sql/pglite/package.json', import.meta.url);
  const version = String(JSON.parse(await readFile(manifest, 'utf8')).version);
  const versionFile = new URL(`./pglite-snapshot.version`, PGLITE_SNAPSHOT);
  try {
    await stat(PGLITE_SNAPSHOT);
    if ((await readFile(versionFile, 'utf8')) === version) return;
  } catch {
    // Not made yet.
  }
  const db = await PGlite.create();
  const dump = await db.dumpDataDir('none');
  await db.close();
  await mkdir(new URL('.', PGLITE_SNAPSHOT), { recursive: true });
  await writeFile(PGLITE_SNAPSHOT, new Uint8Array(await dump.arrayBuffer()));
  await writeFile(versionFile, version);
}

/** A fresh in-memory PGlite loaded from the snapshot. */
export async function openPgliteSnapshot() {
  const { PGlite } = await import('@electric-sql/pglite');
  let bytes: Buffer;
  try {
    bytes = await readFile(PGLITE_SNAPSHOT);
  } catch {
    await ensurePgliteSnapshot();
    bytes = await readFile(PGLITE_SNAPSHOT);
  }
  return PGlite.create({ loadDataDir: new Blob([new Uint8Array(bytes)]) });
}
