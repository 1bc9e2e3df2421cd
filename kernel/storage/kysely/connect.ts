/**
 * Opening the SQL databases. Each client library is imported only when its driver is configured,
 * so a PGlite hub never loads `mysql2` and the reverse.
 */
import { Kysely, MysqlDialect, PostgresDialect } from 'kysely';
import type { PGlite } from '@electric-sql/pglite';
import type { MysqlDbConfig, PostgresDbConfig } from '../config.ts';
import { lockDataDir } from './pglite-lock.ts';
import type { SqlDialect } from './dialect.ts';

/** Wraps an open PGlite instance; `onClose` runs after the instance is closed. */
export async function pgliteDialect(pglite: PGlite, onClose: () => void = () => {}): Promise<SqlDialect> {
  const { default: pg } = await import('pg');
  const { createPgConfig } = await import('@electric-sql/pglite/node-postgres');
  const pool = new pg.Pool(createPgConfig(pglite) as unknown as import('pg').PoolConfig);
  const db = new Kysely<any>({ dialect: new PostgresDialect({ pool }) });
  return {
    kind: 'pglite',
    flavor: 'postgres',
    db,
    async close() {
      await db.destroy();
      await pglite.close();
      onClose();
    },
  };
}

/** Opens (creating if needed) a PGlite data directory, or an in-memory database for `memory://`. */
export async function openPglite(dataDir: string): Promise<SqlDialect> {
  const { PGlite } = await import('@electric-sql/pglite');
  if (dataDir === 'memory://') return pgliteDialect(await PGlite.create());
  const release = lockDataDir(dataDir);
  try {
    return await pgliteDialect(await PGlite.create(dataDir), release);
  } catch (error) {
    release();
    throw error;
  }
}

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
  // A client checked out of the pool has no 'error' listener of the pool's, so a connection that
  // drops while a query runs (a database restart, a cut network) would otherwise be an uncaught
  // exception that ends the process. The query itself still fails with the error, and the pool
  // discards the dead client when it is released.
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
  const db = new Kysely<any>({ dialect: new PostgresDialect({ pool }) });
  return {
    kind: 'postgres',
    flavor: 'postgres',
    db,
    close: () => db.destroy(),
    poolStats: () => ({ total: pool.totalCount, inUse: pool.totalCount - pool.idleCount, waiting: pool.waitingCount }),
  };
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
  // mysql2 keeps its counts in queues it does not document; read them defensively.
  const queues = pool as unknown as { _allConnections?: { length: number }; _freeConnections?: { length: number }; _connectionQueue?: { length: number } };
  return {
    kind: 'mysql',
    flavor: 'mysql',
    db,
    close: () => db.destroy(),
    poolStats() {
      const total = queues._allConnections?.length;
      const free = queues._freeConnections?.length;
      const waiting = queues._connectionQueue?.length;
      return {
        ...(total === undefined ? {} : { total }),
        ...(total === undefined || free === undefined ? {} : { inUse: total - free }),
        ...(waiting === undefined ? {} : { waiting }),
      };
    },
  };
}
