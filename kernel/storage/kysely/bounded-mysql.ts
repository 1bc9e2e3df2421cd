/** The MySQL/MariaDB (`mysql2`) pool with the bounds and breaker of bounded-pool.ts. */
import type { MysqlPool, MysqlPoolConnection } from 'kysely';
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
import { isBrokenTriggerError } from './errors.ts';

/** The parts of a `mysql2` pool and pooled connection used here. */
interface MyConnection {
  query(sql: string, parameters: unknown[], callback?: (error: unknown, result: any) => void): any;
  release(): void;
  destroy(): void;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

interface MyPool {
  getConnection(callback: (error: any, connection: any) => void): void;
  query(sql: string, parameters: unknown[], callback: (error: any, result: any) => void): void;
  end(callback?: (error: any) => void): void;
  on(event: 'connection', listener: (connection: any) => void): unknown;
}

export function boundedMysqlPool(pool: MyPool, bounds: PoolBounds): WithBreaker<MysqlPool> {
  pool.on('connection', (connection: MyConnection) => {
    // mysql2 listens with `once`; a second error on the same connection would be unhandled.
    connection.on('error', () => undefined);
  });
  const healTriggers = triggerHealer(pool);
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
        if (isUnbounded()) return connection.query(sql, parameters, callback);
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
          if (error) healTriggers(error, sql);
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

/** The table a write names first: the one whose triggers it fires. */
const WRITE_TARGET = /^\s*(?:insert(?:\s+ignore)?\s+into|update|delete\s+from)\s+`([^`]+)`/i;

/**
 * MariaDB parses a table's triggers each time it opens an instance of the table for its table
 * cache. A connection killed during that parse (a failover, an idle reaper, `KILL`) can leave the
 * cached instance with a trigger list it could not read, and every later write that is handed that
 * instance fails ({@link isBrokenTriggerError}) for as long as it stays cached. The write that
 * meets it gets 503 (`isOutageError`), and the hub closes the cached instances of the table it
 * wrote (`FLUSH TABLES <table>`, which needs the RELOAD privilege), so the next open parses the
 * triggers afresh. One flush at a time per table; without the privilege
 * the 503s go on, and the outage log's cause names the broken trigger.
 */
function triggerHealer(pool: MyPool): (error: unknown, sql: string) => void {
  const healing = new Set<string>();
  return (error, sql) => {
    if (!isBrokenTriggerError(error)) return;
    const table = WRITE_TARGET.exec(sql)?.[1];
    if (!table || healing.has(table)) return;
    healing.add(table);
    pool.query(`FLUSH TABLES \`${table.replaceAll('`', '``')}\``, [], () => healing.delete(table));
  };
}
