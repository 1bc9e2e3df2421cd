/**
 * SQLite: a write outside a transaction runs in one of its own. libsql leaves a statement that met
 * another process's lock (SQLITE_BUSY) active until the same statement runs again, and while it
 * is active no transaction of the connection can commit ("SQL statements in progress"). Inside a
 * transaction only `BEGIN IMMEDIATE` can meet the lock, and every later transaction runs that same
 * statement first, which resets it.
 */
import type { Store, TableApi } from '../contract.ts';
import type { Table } from '../table.ts';
import type { Row } from './table-api.ts';

const WRITES = [
  'insert',
  'insertMany',
  'put',
  'update',
  'updateWhere',
  'updateVersioned',
  'delete',
  'deleteWhere',
  'increment',
] as const;

/** `api` with each write run as a transaction of `store`. */
export function writesInTransactions(
  store: Store,
  table: Table,
  api: TableApi<Row>,
): TableApi<Row> {
  const wrapped: Record<string, unknown> = { ...api };
  for (const method of WRITES) {
    wrapped[method] = (...args: unknown[]) =>
      store.transaction((tx) =>
        (tx.table(table) as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[
          method
        ]!(...args),
      );
  }
  return wrapped as unknown as TableApi<Row>;
}
