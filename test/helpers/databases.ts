/**
 * Databases for tests: a fresh, uniquely named database per call on PostgreSQL
 * (`HUB_TEST_PG_URL`) and MySQL/MariaDB (`HUB_TEST_MYSQL_URL`), dropped on cleanup; the embedded
 * SQLite database in a new temporary file, removed on cleanup.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DbConfig } from '../../kernel/storage/config.ts';
import { createFirestoreTestDatabase, FIRESTORE_HOST_VAR } from './firestore.ts';
import { MYSQL_URL_VAR, PG_URL_VAR, requireService } from './services.ts';

export type DriverKind = 'sqlite' | 'postgres' | 'mysql' | 'firestore';

/** The embedded database every run has, with no service to configure. */
export const EMBEDDED_DRIVER = 'sqlite' satisfies DriverKind;

const urls: Record<Exclude<DriverKind, 'sqlite'>, string> = {
  postgres: PG_URL_VAR,
  mysql: MYSQL_URL_VAR,
  firestore: FIRESTORE_HOST_VAR,
};

/** Whether the driver's service is configured: {@link requireService} for the driver's variable. */
export function driverAvailable(kind: DriverKind): boolean {
  return kind === 'sqlite' || !!requireService(urls[kind]);
}

/**
 * The database for suites that need one but no particular one (the CLI's): PostgreSQL when
 * HUB_TEST_PG_URL is set (always under CI=true, where an unset variable fails the file), else the
 * embedded SQLite, so a plain run needs no service for them.
 */
export function serverOrEmbedded(): 'postgres' | 'sqlite' {
  return driverAvailable('postgres') ? 'postgres' : EMBEDDED_DRIVER;
}

/** Runs one statement on a SQLite file, with PostgreSQL's `$1` placeholders read as `?1`. */
function querySqlite(path: string, sql: string, params: unknown[] = []): any[] {
  const Database = createRequire(import.meta.url)('libsql');
  const db = new Database(path);
  try {
    db.exec('PRAGMA busy_timeout = 5000');
    const statement = db.prepare(sql.replace(/\$(\d+)/g, '?$1'));
    if (statement.reader) return statement.all(params);
    statement.run(params);
    return [];
  } finally {
    db.close();
  }
}

function uniqueDbName(): string {
  return `hub_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
}

export interface TestDatabase {
  config: DbConfig;
  /**
   * Runs one SQL statement on the database itself (PostgreSQL, MySQL, SQLite), to look behind the
   * hub or the CLI. SQLite reads PostgreSQL's `$1` placeholders.
   */
  query<R = any>(sql: string, params?: unknown[]): Promise<R[]>;
  drop(): Promise<void>;
}

const noSql = (kind: DriverKind) => async (): Promise<never> => {
  throw new Error(`query() needs a SQL server, not ${kind}`);
};

/** A new empty database (a server's, or a SQLite file in a new temporary directory); `drop()` removes it. */
export async function createTestDatabase(kind: DriverKind): Promise<TestDatabase> {
  if (kind === 'firestore') return { ...(await createFirestoreTestDatabase()), query: noSql(kind) };
  if (kind === 'sqlite') {
    const dir = await mkdtemp(join(tmpdir(), 'hub-sqlite-'));
    const path = join(dir, 'hub.db');
    return {
      config: { driver: 'sqlite', path, synchronous: 'normal' },
      query: async (sql, params) => querySqlite(path, sql, params),
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
    const port = Number(url.port || 5432);
    const run = async (database: string | undefined, statement: string, params?: unknown[]) => {
      const client = new pg.Client(
        database
          ? { host: common.host, port, user: common.user, password: common.password, database }
          : { connectionString: url.toString() },
      );
      await client.connect();
      try {
        return (await client.query(statement, params)).rows;
      } finally {
        await client.end();
      }
    };
    await run(undefined, `CREATE DATABASE ${name}`);
    return {
      config: { driver: 'postgres', port, ...common },
      query: (sql, params) => run(name, sql, params),
      drop: async () => void (await run(undefined, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)),
    };
  }
  const mysql = await import('mysql2/promise');
  const run = async (database: string | undefined, statement: string, params?: unknown[]) => {
    const conn = await mysql.createConnection({
      host: url.hostname,
      port: Number(url.port || 3306),
      user: common.user,
      password: common.password,
      ...(database ? { database } : {}),
    });
    try {
      return (await conn.query(statement, params))[0] as any[];
    } finally {
      await conn.end();
    }
  };
  await run(undefined, `CREATE DATABASE ${name} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  return {
    config: { driver: 'mysql', port: Number(url.port || 3306), ...common },
    query: (sql, params) => run(name, sql, params),
    drop: async () => void (await run(undefined, `DROP DATABASE IF EXISTS ${name}`)),
  };
}
