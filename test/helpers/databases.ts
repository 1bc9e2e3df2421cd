/**
 * Databases for tests: a fresh, uniquely named database per call on PostgreSQL
 * (`HUB_TEST_PG_URL`) and MySQL/MariaDB (`HUB_TEST_MYSQL_URL`), dropped on cleanup; the embedded
 * SQLite database in a new temporary file, removed on cleanup.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DbConfig } from '../../kernel/storage/config.ts';
import { createFirestoreTestDatabase, FIRESTORE_HOST_VAR } from './firestore.ts';

export type DriverKind = 'sqlite' | 'postgres' | 'mysql' | 'firestore';

/** The embedded database every run has, with no service to configure. */
export const EMBEDDED_DRIVER = 'sqlite' satisfies DriverKind;

const urls: Record<Exclude<DriverKind, 'sqlite'>, string> = { postgres: 'HUB_TEST_PG_URL', mysql: 'HUB_TEST_MYSQL_URL', firestore: FIRESTORE_HOST_VAR };

/** Whether the driver's service is configured; under CI a missing variable is an error. */
export function driverAvailable(kind: DriverKind): boolean {
  if (kind === 'sqlite') return true;
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

/** A new empty database (a server's, or a SQLite file in a new temporary directory); `drop()` removes it. */
export async function createTestDatabase(kind: DriverKind): Promise<TestDatabase> {
  if (kind === 'firestore') return createFirestoreTestDatabase();
  if (kind === 'sqlite') {
    const dir = await mkdtemp(join(tmpdir(), 'hub-sqlite-'));
    return {
      config: { driver: 'sqlite', path: join(dir, 'hub.db'), synchronous: 'normal' },
      drop: () => rm(dir, { recursive: true, force: true }),
    };
  }
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
