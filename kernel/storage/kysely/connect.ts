/**
 * Opening the server databases. Each client library is imported only when its driver is
 * configured, so a PostgreSQL hub never loads `mysql2` and the reverse (SQLite: `sqlite.ts`).
 */
import { Kysely, MysqlDialect, PostgresDialect } from 'kysely';
import type { MysqlDbConfig, PostgresDbConfig } from '../config.ts';
import type { SqlDialect } from './dialect.ts';

function sslOption(ssl: PostgresDbConfig['ssl']) {
  if (ssl === undefined || ssl === false) return undefined;
  return ssl === true ? {} : ssl;
}

export async function openPostgres(config: PostgresDbConfig): Promise<SqlDialect> {
  const { default: pg } = await import('pg');
  // BIGINT comes back as a string by default; every hub integer fits a JS number.
  pg.types.setTypeParser(20, (value) => Number(value));
  // timestamptz stays text: the codec turns a UTC session's form into ISO directly, much cheaper
  // than a Date per value on large listings (other session time zones take the slower exact path).
  pg.types.setTypeParser(1184, (value) => value);
  const ssl = sslOption(config.ssl);
  const pool = new pg.Pool({
    host: config.host,
    port: config.port,
    user: config.user,
    password: config.password,
    database: config.database,
    max: config.max,
    connectionTimeoutMillis: config.connectionTimeoutMillis,
    ...(ssl ? { ssl } : {}),
  });
  pool.on('error', () => {
    // An idle client lost its connection; the pool replaces it. Queries report their own errors.
  });
  const db = new Kysely<any>({ dialect: new PostgresDialect({ pool }) });
  return { kind: 'postgres', flavor: 'postgres', db, close: () => db.destroy() };
}

export async function openMysql(config: MysqlDbConfig): Promise<SqlDialect> {
  const { createPool } = await import('mysql2');
  const ssl = sslOption(config.ssl);
  const pool = createPool({
    host: config.host,
    port: config.port,
    user: config.user,
    password: config.password,
    database: config.database,
    connectionLimit: config.max,
    connectTimeout: config.connectionTimeoutMillis,
    // DATETIME(3) columns hold UTC; the session must not shift them.
    timezone: 'Z',
    supportBigNumbers: true,
    bigNumberStrings: false,
    charset: 'utf8mb4',
    ...(ssl ? { ssl: ssl as object } : {}),
  });
  const db = new Kysely<any>({ dialect: new MysqlDialect({ pool }) });
  return { kind: 'mysql', flavor: 'mysql', db, close: () => db.destroy() };
}
