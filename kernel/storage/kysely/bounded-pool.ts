/**
 * Bounds on the PostgreSQL and MySQL pools, so a database that stalls (paused, overloaded, a
 * half-open connection behind a load balancer) costs a request a bounded wait and a 503 instead of
 * a hang for as long as the stall lasts:
 *
 * - taking a connection from the pool waits at most `acquireTimeoutMillis`;
 * - one statement waits at most `queryTimeoutMillis` for its answer. A connection whose statement
 *   timed out is discarded, never handed back to the pool: its late answer would otherwise be read
 *   as the answer to the next statement.
 *
 * Both raise a {@link DatabaseTimeoutError}, which the store maps to an `unavailable` StorageError.
 * Migrations may run longer than any request should, so they run inside {@link withoutQueryTimeout}.
 *
 * Each pool has a circuit breaker (kernel/breaker.ts): either timeout, or a connection that could
 * not be opened, trips it, and while it is open taking a connection fails at once with a
 * {@link CircuitOpenError} while one `SELECT 1` at a time probes the database. A statement that
 * fails on a connection that died under it does not trip it: the next connection tells.
 *
 * The wrappers also keep an `error` listener on every pooled connection for its whole life. The
 * client libraries emit `error` on a connection that dies while it is checked out (a restart, a
 * failover, `pg_terminate_backend`, `KILL`), and an `error` event nobody listens to ends the process.
 * The failure itself still reaches the statement that was running or the next one sent.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { MysqlPool, MysqlPoolConnection, PostgresPool, PostgresPoolClient } from 'kysely';
import { createCircuitBreaker, type CircuitBreaker } from '../../breaker.ts';
import { isConnectFailure } from './dialect.ts';

export interface PoolBounds {
  acquireTimeoutMillis: number;
  queryTimeoutMillis: number;
}

/** The database did not answer in time; the code lets `isOutageError` recognise it. */
export class DatabaseTimeoutError extends Error {
  readonly code = 'HUB_DB_TIMEOUT';
  constructor(message: string) {
    super(message);
    this.name = 'DatabaseTimeoutError';
  }
}

/** The breaker is open: the database stalled and no probe has answered since. */
export class CircuitOpenError extends Error {
  readonly code = 'HUB_DB_CIRCUIT_OPEN';
  constructor(cause: unknown) {
    super('The database stalled; requests fail at once until a probe answers', { cause });
    this.name = 'CircuitOpenError';
  }
}

/** A pool of the hub's with its circuit breaker. */
export type WithBreaker<P> = P & { readonly breaker: CircuitBreaker };

const unbounded = new AsyncLocalStorage<boolean>();

/** Runs `fn` with no statement timeout on the connections it uses (migrations). */
export function withoutQueryTimeout<T>(fn: () => Promise<T>): Promise<T> {
  return unbounded.run(true, fn);
}

const queryTimeout = (ms: number) =>
  new DatabaseTimeoutError(`The database did not answer within ${ms} ms`);
const acquireTimeout = (ms: number) =>
  new DatabaseTimeoutError(`No database connection became available within ${ms} ms`);
const discarded = () =>
  new DatabaseTimeoutError('The connection was discarded after a statement timed out');

/**
 * Waits for `start`'s connection at most `ms`. A connection that arrives after the caller gave up
 * goes straight back through `giveBack`.
 */
function acquireWithin<C>(
  ms: number,
  start: (done: (error: unknown, connection?: C) => void) => void,
  giveBack: (connection: C) => void,
): Promise<C> {
  return new Promise<C>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => {
      settled = true;
      reject(acquireTimeout(ms));
    }, ms);
    start((error, connection) => {
      if (settled) {
        if (!error && connection) giveBack(connection);
        return;
      }
      settled = true;
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(connection as C);
    });
  });
}

/** The parts of a `pg` pooled client used here (`connection` is internal to pg, hence optional). */
interface PgClient {
  query(...args: any[]): any;
  release(error?: Error | boolean): void;
  on(event: 'error', listener: (error: Error) => void): unknown;
  connection?: { stream?: { destroy?: () => void } };
}

interface PgPool {
  connect(): Promise<PgClient>;
  end(): Promise<void>;
  on(event: 'connect', listener: (client: PgClient) => void): unknown;
}

/** Whether a failure to take a connection says the database is stalled or gone. */
const stalledOnAcquire = (error: unknown) =>
  error instanceof DatabaseTimeoutError || isConnectFailure(error);

/**
 * The breaker of one pool. `probe` takes a connection past the breaker and runs `SELECT 1` on it,
 * bounded like any statement even when a migration's statement (unbounded) tripped it.
 */
function poolBreaker(probe: () => Promise<void>): CircuitBreaker {
  return createCircuitBreaker({
    name: 'database',
    probe: () => unbounded.run(false, probe),
  });
}

/** Runs `acquire`, tripping the breaker when taking the connection stalled or failed to connect. */
async function reportingStall<C>(breaker: () => CircuitBreaker, acquire: () => Promise<C>) {
  const started = Date.now();
  try {
    return await acquire();
  } catch (error) {
    if (stalledOnAcquire(error)) breaker().trip(error, started);
    throw error;
  }
}

export function boundedPgPool(pool: PgPool, bounds: PoolBounds): WithBreaker<PostgresPool> {
  pool.on('connect', (client) => {
    client.on('error', () => {
      // The connection died while checked out; its statement (or the next) reports the error and
      // the pool drops the client on release because it is no longer queryable.
    });
  });
  // A new wrapper per checkout: `broken` describes this use of the client only.
  const wrap = (client: PgClient): PostgresPoolClient => {
    let broken = false;
    return {
      query(...args: any[]): any {
        // A cursor (streaming) manages its own reads; the hub does not stream.
        if (typeof args[0] !== 'string') return client.query(...args);
        if (broken) return Promise.reject(discarded());
        const pending: Promise<any> = client.query(...args);
        if (unbounded.getStore()) return pending;
        const ms = bounds.queryTimeoutMillis;
        const started = Date.now();
        return new Promise((resolve, reject) => {
          const timer = setTimeout(() => {
            broken = true;
            // Drop the socket now: the statement may still be running, and nothing it sends later
            // may reach another request.
            client.connection?.stream?.destroy?.();
            const error = queryTimeout(ms);
            breaker.trip(error, started);
            reject(error);
          }, ms);
          pending.then(
            (result) => {
              clearTimeout(timer);
              resolve(result);
            },
            (error) => {
              clearTimeout(timer);
              reject(error);
            },
          );
        });
      },
      release() {
        // With an error, pg-pool removes the client instead of keeping it idle.
        if (broken) client.release(discarded());
        else client.release();
      },
    };
  };
  const acquire = () =>
    reportingStall(
      () => breaker,
      () =>
        acquireWithin<PgClient>(
          bounds.acquireTimeoutMillis,
          (done) =>
            void pool.connect().then(
              (c) => done(null, c),
              (error) => done(error),
            ),
          (late) => late.release(),
        ),
    ).then(wrap);
  const breaker = poolBreaker(async () => {
    const client = await acquire();
    try {
      await client.query('SELECT 1', []);
    } finally {
      client.release();
    }
  });
  return {
    breaker,
    async connect() {
      if (breaker.isOpen()) throw new CircuitOpenError(breaker.cause);
      return acquire();
    },
    end: () => {
      breaker.dispose();
      return pool.end();
    },
  };
}

/** The parts of a `mysql2` pool and pooled connection used here. */
interface MyConnection {
  query(sql: string, parameters: unknown[], callback?: (error: unknown, result: any) => void): any;
  release(): void;
  destroy(): void;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

interface MyPool {
  getConnection(callback: (error: any, connection: any) => void): void;
  end(callback?: (error: any) => void): void;
  on(event: 'connection', listener: (connection: any) => void): unknown;
}

export function boundedMysqlPool(pool: MyPool, bounds: PoolBounds): WithBreaker<MysqlPool> {
  pool.on('connection', (connection: MyConnection) => {
    // mysql2 listens with `once`; a second error on the same connection would be unhandled.
    connection.on('error', () => undefined);
  });
  const wrap = (connection: MyConnection): MysqlPoolConnection => {
    let broken = false;
    const wrapper = {
      query(
        sql: string,
        parameters: unknown[],
        callback?: (error: unknown, result: any) => void,
      ): any {
        if (!callback) return connection.query(sql, parameters);
        if (broken) {
          queueMicrotask(() => callback(discarded(), undefined));
          return;
        }
        if (unbounded.getStore()) return connection.query(sql, parameters, callback);
        const ms = bounds.queryTimeoutMillis;
        const started = Date.now();
        let timedOut = false;
        const timer = setTimeout(() => {
          timedOut = true;
          broken = true;
          // Removes it from the pool and closes the socket: its late answer must reach no one.
          connection.destroy();
          const error = queryTimeout(ms);
          breaker.trip(error, started);
          callback(error, undefined);
        }, ms);
        connection.query(sql, parameters, (error, result) => {
          if (timedOut) return;
          clearTimeout(timer);
          callback(error, result);
        });
      },
      release() {
        if (!broken) connection.release();
      },
    };
    return wrapper as MysqlPoolConnection;
  };
  const acquire = () =>
    reportingStall(
      () => breaker,
      () =>
        acquireWithin<MyConnection>(
          bounds.acquireTimeoutMillis,
          (done) => pool.getConnection(done),
          (late) => late.release(),
        ),
    ).then(wrap);
  const breaker = poolBreaker(async () => {
    const connection = await acquire();
    try {
      await new Promise<void>((resolve, reject) =>
        connection.query('SELECT 1', [], (error: unknown) => (error ? reject(error) : resolve())),
      );
    } finally {
      connection.release();
    }
  });
  return {
    breaker,
    getConnection(callback) {
      if (breaker.isOpen()) {
        const error = new CircuitOpenError(breaker.cause);
        queueMicrotask(() => callback(error, undefined as unknown as MysqlPoolConnection));
        return;
      }
      acquire().then(
        (connection) => callback(null, connection),
        (error) => callback(error, undefined as unknown as MysqlPoolConnection),
      );
    },
    end: (callback) => {
      breaker.dispose();
      pool.end(callback);
    },
  };
}
