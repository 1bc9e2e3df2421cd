/**
 * SQLite: a write outside a transaction runs in one of its own. libsql leaves a statement that met
 * another process's lock (SQLITE_BUSY) active until the same statement runs again, and while it
 * is active no transaction of the connection can commit ("SQL statements in progress"). Inside a
 * transaction only `BEGIN IMMEDIATE` can meet the lock, and every later transaction runs that same
 * statement first, which resets it.
 */
import type { Store, TableApi } from '../contract.ts';
import type { Table } from '../table.ts';
import type { Row } from './dialect.ts';

type Method = keyof TableApi<Row>;
type Call = (...args: unknown[]) => Promise<unknown>;

/** Whether each method of the table API writes (then it runs as a transaction of its own). */
const WRITES: Record<Method, boolean> = {
  get: false,
  getForUpdate: false,
  getMany: false,
  find: false,
  findOne: false,
  count: false,
  insert: true,
  insertMany: true,
  put: true,
  update: true,
  updateWhere: true,
  updateVersioned: true,
  delete: true,
  deleteWhere: true,
  increment: true,
};

/**
 * The table API of `store` (outside a transaction) with each write run as a transaction of the
 * store; the reads are `build()`'s, built at the first read (a store that only writes the table
 * builds its API in the transactions alone).
 */
export function writesInTransactions(
  store: Store,
  table: Table,
  build: () => TableApi<Row>,
): TableApi<Row> {
  let reads: Record<Method, Call> | undefined;
  const wrapped = {} as Record<Method, Call>;
  for (const method of Object.keys(WRITES) as Method[]) {
    wrapped[method] = WRITES[method]
      ? (...args) =>
          store.transaction((tx) =>
            (tx.table(table) as unknown as Record<Method, Call>)[method](...args),
          )
      : (...args) => (reads ??= build() as unknown as Record<Method, Call>)[method](...args);
  }
  return wrapped as unknown as TableApi<Row>;
}
