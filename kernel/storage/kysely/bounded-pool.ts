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
 *
 * This file holds what both pools share; bounded-pg.ts and bounded-mysql.ts wrap each driver's pool.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createCircuitBreaker, type CircuitBreaker } from '../../breaker.ts';
import { isConnectFailure } from './errors.ts';

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

/**
 * Set while statements may run unbounded (migrations). Switched off whenever no run is in
 * progress: on Node 20 an active AsyncLocalStorage makes every promise of the process pay a hook,
 * and a hub runs its migrations once, at start.
 */
const unbounded = new AsyncLocalStorage<boolean>();
let runs = 0;

async function flagged<T>(value: boolean, fn: () => Promise<T>): Promise<T> {
  runs++;
  try {
    return await unbounded.run(value, fn);
  } finally {
    if (--runs === 0) unbounded.disable();
  }
}

/** Whether the statement being sent belongs to a migration (no timeout). */
export const isUnbounded = (): boolean => unbounded.getStore() === true;

/** Runs `fn` with no statement timeout on the connections it uses (migrations). */
export function withoutQueryTimeout<T>(fn: () => Promise<T>): Promise<T> {
  return flagged(true, fn);
}

export const queryTimeout = (ms: number) =>
  new DatabaseTimeoutError(`The database did not answer within ${ms} ms`);
const acquireTimeout = (ms: number) =>
  new DatabaseTimeoutError(`No database connection became available within ${ms} ms`);
export const discarded = () =>
  new DatabaseTimeoutError('The connection was discarded after a statement timed out');

/**
 * Waits for `start`'s connection at most `ms`. A connection that arrives after the caller gave up
 * goes straight back through `giveBack`.
 */
export function acquireWithin<C>(
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

/** Whether a failure to take a connection says the database is stalled or gone. */
const stalledOnAcquire = (error: unknown) =>
  error instanceof DatabaseTimeoutError || isConnectFailure(error);

/**
 * The breaker of one pool. `probe` takes a connection past the breaker and runs `SELECT 1` on it,
 * bounded like any statement even when a migration's statement (unbounded) tripped it.
 */
export function poolBreaker(probe: () => Promise<void>): CircuitBreaker {
  return createCircuitBreaker({
    name: 'database',
    // Outside a migration the flag is already off: no need to switch the storage on.
    probe: () => (runs === 0 ? probe() : flagged(false, probe)),
  });
}

/** Runs `acquire`, tripping the breaker when taking the connection stalled or failed to connect. */
export async function reportingStall<C>(breaker: () => CircuitBreaker, acquire: () => Promise<C>) {
  const started = Date.now();
  try {
    return await acquire();
  } catch (error) {
    if (stalledOnAcquire(error)) breaker().trip(error, started);
    throw error;
  }
}
