/** The PostgreSQL (`pg`) pool with the bounds and breaker of bounded-pool.ts. */
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import {
  acquireWithin,
  CircuitOpenError,
  discarded,
  poolBreaker,
  queryTimeout,
  reportingStall,
  unbounded,
  type PoolBounds,
  type WithBreaker,
} from './bounded-pool.ts';

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
