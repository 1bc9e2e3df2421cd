/**
 * The PostgreSQL (`pg`) pool with the bounds and breaker of bounded-pool.ts, and prepared
 * statements: a statement's text is parsed and planned once per connection (a named statement)
 * instead of at every run, which a profile showed was a large part of PostgreSQL's work per
 * request.
 */
import { createHash } from 'node:crypto';
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import { StorageError } from '../contract.ts';
import {
  acquireWithin,
  CircuitOpenError,
  discarded,
  poolBreaker,
  queryTimeout,
  reportingStall,
  isUnbounded,
  type PoolBounds,
  type WithBreaker,
} from './bounded-pool.ts';

/** The parts of a `pg` pooled client used here (`connection` is internal to pg, hence optional). */
interface PgClient {
  query(...args: any[]): any;
  release(error?: Error | boolean): void;
  on(event: 'error', listener: (error: Error) => void): unknown;
  connection?: { stream?: { destroy?: () => void }; parsedStatements?: Record<string, string> };
}

/** Named statements one connection keeps at most; texts past it run unnamed. */
export const MAX_PREPARED = 200;
/** Texts that vary with their input (an `IN` list, several rows of VALUES) are not named. */
const VARYING = /\bin \(|\), \(/i;
const names = new Map<string, string>();

/** The statement name of a text: a digest, so equal texts share it on every connection. */
function nameOf(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    if (names.size >= 4 * MAX_PREPARED) names.clear();
    name = `hub_${createHash('sha1').update(text).digest('base64url').slice(0, 24)}`;
    names.set(text, name);
  }
  return name;
}

/**
 * A named statement of a connection that outlived a change of its table (another process's
 * migration added a column, so `SELECT *` no longer returns what was planned). The connection is
 * dropped and the request gets 503; the next connection prepares afresh.
 */
const isStalePlan = (error: unknown) =>
  (error as { code?: string }).code === '0A000' &&
  /cached plan must not change result type/i.test((error as Error).message ?? '');

interface PgPool {
  connect(): Promise<PgClient>;
  end(): Promise<void>;
  on(event: 'connect', listener: (client: PgClient) => void): unknown;
}

type Prepare = (client: PgClient, args: any[]) => any[];

/** Names the statements of each connection, up to MAX_PREPARED, when prepared statements are on. */
function statementPreparer(preparedStatements: boolean): Prepare {
  const prepared = new WeakMap<PgClient, number>();
  /** The query as a named statement when it may be one; else as given. */
  return (client, args) => {
    const [text, values] = args;
    const parsed = client.connection?.parsedStatements;
    // Statements without parameters (DDL, BEGIN, SET) are few or run once: not worth a name.
    if (!preparedStatements || !parsed || !(values?.length > 0) || VARYING.test(text)) return args;
    const name = nameOf(text);
    if (parsed[name] === undefined) {
      const count = prepared.get(client) ?? 0;
      if (count >= MAX_PREPARED) return args;
      prepared.set(client, count + 1);
    }
    return [{ name, text, values }];
  };
}

type Breaker = ReturnType<typeof poolBreaker>;

/**
 * One checkout of a client: its queries prepared and bounded by the query timeout, which trips
 * the breaker. A new wrapper per checkout: `broken` describes this use of the client only.
 */
function checkedOut(
  client: PgClient,
  prepare: Prepare,
  bounds: PoolBounds,
  breaker: () => Breaker,
): PostgresPoolClient {
  let broken = false;
  return {
    query(...args: any[]): any {
      // A cursor (streaming) manages its own reads; the hub does not stream.
      if (typeof args[0] !== 'string') return client.query(...args);
      if (broken) return Promise.reject(discarded());
      const pending: Promise<any> = client
        .query(...prepare(client, args))
        .catch((error: unknown) => {
          if (!isStalePlan(error)) throw error;
          broken = true;
          throw new StorageError(
            'unavailable',
            'A table changed under a prepared statement; the connection was dropped, try again.',
          );
        });
      if (isUnbounded()) return pending;
      const ms = bounds.queryTimeoutMillis;
      const started = Date.now();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          broken = true;
          // Drop the socket now: the statement may still be running, and nothing it sends later
          // may reach another request.
          client.connection?.stream?.destroy?.();
          const error = queryTimeout(ms);
          breaker().trip(error, started);
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
}

export function boundedPgPool(
  pool: PgPool,
  bounds: PoolBounds,
  options: { preparedStatements: boolean } = { preparedStatements: true },
): WithBreaker<PostgresPool> {
  const prepare = statementPreparer(options.preparedStatements);
  pool.on('connect', (client) => {
    client.on('error', () => {
      // The connection died while checked out; its statement (or the next) reports the error and
      // the pool drops the client on release because it is no longer queryable.
    });
  });
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
    ).then((client) => checkedOut(client, prepare, bounds, () => breaker));
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
