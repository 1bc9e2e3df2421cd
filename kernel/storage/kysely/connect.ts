/**
 * Opening the server databases. Each client library is imported only when its driver is
 * configured, so a PostgreSQL hub never loads `mysql2` and the reverse (SQLite: `sqlite.ts`). What
 * each database does differently once open is its dialect's (dialects/).
 */
import { Kysely, MysqlDialect, PostgresDialect, sql } from 'kysely';
import type { MysqlDbConfig, PostgresDbConfig } from '../config.ts';
import type { SqlConnection } from './dialect.ts';
import { boundedMysqlPool } from './bounded-mysql.ts';
import { boundedPgPool } from './bounded-pg.ts';
import type { PoolBounds } from './bounded-pool.ts';
import { CHANGES_CHANNEL, PROBE_TIMEOUT_MS, watchNotifications } from './pg-listen.ts';
import { watchChangeCounts } from './change-counts.ts';

/** Defaults of `db.acquireTimeoutMillis` and `db.queryTimeoutMillis` (see kernel/storage/config.ts). */
export const DEFAULT_ACQUIRE_TIMEOUT_MS = 5000;
export const DEFAULT_QUERY_TIMEOUT_MS = 5000;

function poolBounds(config: PostgresDbConfig | MysqlDbConfig): PoolBounds {
  return {
    acquireTimeoutMillis: config.acquireTimeoutMillis ?? DEFAULT_ACQUIRE_TIMEOUT_MS,
    queryTimeoutMillis: config.queryTimeoutMillis ?? DEFAULT_QUERY_TIMEOUT_MS,
  };
}

function sslOption(ssl: PostgresDbConfig['ssl']) {
  if (ssl === undefined || ssl === false) return undefined;
  return ssl === true ? {} : ssl;
}

export async function openPostgres(config: PostgresDbConfig): Promise<SqlConnection> {
  const { default: pg } = await import('pg');
  // BIGINT comes back as a string by default; every hub integer fits a JS number.
  pg.types.setTypeParser(20, (value) => Number(value));
  // timestamptz stays text: the codec turns a UTC session's form into ISO directly, much cheaper
  // than a Date per value on large listings (other session time zones take the slower exact path).
  pg.types.setTypeParser(1184, (value) => value);
  const ssl = sslOption(config.ssl);
  const bounds = poolBounds(config);
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
  // The server gives up on a statement too (a lock wait, a slow plan), so it does not keep working
  // for a request that already got its 503; migrations lift it with SET LOCAL. A SET rather than a
  // startup parameter, which PgBouncer refuses unless told to ignore it. Queued before any other
  // statement on the new connection; if it fails, the connection's next statement fails too.
  pool.on('connect', (client) => {
    client.query(`SET statement_timeout = ${bounds.queryTimeoutMillis}`).catch(() => undefined);
  });
  pool.on('error', () => {
    // An idle client lost its connection; the pool replaces it. Queries report their own errors.
  });
  const bounded = boundedPgPool(pool as any, bounds, {
    preparedStatements: config.preparedStatements !== false,
  });
  const db = new Kysely<any>({ dialect: new PostgresDialect({ pool: bounded }) });
  const listenerOptions = {
    host: config.host,
    port: config.port,
    user: config.user,
    password: config.password,
    database: config.database,
    connectionTimeoutMillis: config.connectionTimeoutMillis,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    // Fences are sent without waiting for the answer of the one before (pg-listen.ts). A query
    // unanswered for as long as a probe may take ends the connection (pg destroys a pipelined
    // connection whose query timed out), so fences never pile up on one that went silent.
    pipeline: true,
    query_timeout: PROBE_TIMEOUT_MS,
    // So an operator (and pg_stat_activity) can tell it from the pool's connections.
    application_name: 'workspace-hub changes',
    ...(ssl ? { ssl } : {}),
  };
  return {
    db,
    circuit: bounded.breaker,
    watchOthers: (stamps) =>
      watchNotifications(
        () => new pg.Client(listenerOptions),
        stamps,
        (payload) => sql`SELECT pg_notify(${CHANGES_CHANNEL}, ${payload})`.execute(db),
      ),
    close: () => db.destroy(),
    poolStats: () => ({
      total: pool.totalCount,
      inUse: pool.totalCount - pool.idleCount,
      waiting: pool.waitingCount,
    }),
  };
}

export async function openMysql(config: MysqlDbConfig): Promise<SqlConnection> {
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
  const bounded = boundedMysqlPool(pool as any, poolBounds(config));
  const db = new Kysely<any>({ dialect: new MysqlDialect({ pool: bounded }) });
  // mysql2 keeps its counts in queues it does not document; read them defensively.
  const queues = pool as unknown as {
    _allConnections?: { length: number };
    _freeConnections?: { length: number };
    _connectionQueue?: { length: number };
  };
  return {
    db,
    circuit: bounded.breaker,
    watchOthers: (stamps) => watchChangeCounts(db, stamps),
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
