/**
 * The contract's Store on Kysely: one implementation for SQLite, PostgreSQL and MySQL/MariaDB. A
 * store is bound to a tenant (or unscoped, for the kernel) and to an executor: the pool, or an open
 * transaction. Its tables are table-api.ts; a transaction that lost a race runs again (retry.ts).
 */
import type { Kysely, Transaction, TransactionBuilder } from 'kysely';
import type { Store } from '../contract.ts';
import type { ChangeFeed } from '../changes.ts';
import { NO_CONTEXT, type StoreContext } from '../context.ts';
import type { SqlDialect } from './dialect.ts';
import { retryTransaction } from './retry.ts';
import { writesInTransactions } from './sqlite-writes.ts';
import { insertAllAtOnce } from './pg-writes.ts';
import { tableApi, type ChangedTables, type Executor } from './table-api.ts';

const nothingChanged: ChangedTables = () => undefined;

/**
 * A store on `db` (the pool, or an open transaction). `changed` hears of every table written:
 * outside a transaction after each statement, for a transaction once it has ended, so a cache
 * filled from rows the transaction was changing never outlives its commit. A transaction's store
 * carries this store's `context`.
 */
export function createSqlStore(
  dialect: SqlDialect,
  db: Executor,
  tenantId: string | null,
  inTransaction: boolean,
  changed: ChangedTables = nothingChanged,
  changes?: ChangeFeed,
  context: StoreContext = NO_CONTEXT,
): Store {
  const store: Store = {
    tenantId,
    ...(changes && !inTransaction ? { changes } : {}),
    context,
    table: (table) => {
      const api = tableApi({ dialect, db, tenantId, inTransaction, changed, transaction }, table);
      return (
        dialect.flavor === 'sqlite' && !inTransaction
          ? writesInTransactions(store, table, api)
          : api
      ) as any;
    },
    transaction,
    async insertAll(batches) {
      const filled = batches.filter(({ rows }) => rows.length > 0);
      if (filled.length === 0) return;
      if (!inTransaction && filled.length > 1) return transaction((tx) => tx.insertAll(filled));
      if (
        dialect.flavor === 'postgres' &&
        filled.length > 1 &&
        (await insertAllAtOnce({ db, tenantId, changed }, filled))
      )
        return;
      for (const { table, rows } of filled) await store.table(table).insertMany(rows as any);
    },
  };
  async function transaction<T>(fn: (tx: Store) => Promise<T>): Promise<T> {
    if (inTransaction) return fn(store);
    return retryTransaction(async () => {
      const written = new Set<string>();
      try {
        // READ COMMITTED everywhere (PostgreSQL's default; MySQL's is REPEATABLE READ): a read
        // after taking a row lock must see what the previous lock holder committed, not a
        // snapshot from before we waited.
        // SQLite has one writer at a time (BEGIN IMMEDIATE), so every read sees the last commit.
        const begin = (db as Kysely<any>).transaction();
        return await durably(
          dialect,
          dialect.flavor === 'sqlite' ? begin : begin.setIsolationLevel('read committed'),
          (trx) =>
            fn(
              createSqlStore(
                dialect,
                trx,
                tenantId,
                true,
                (tables) => {
                  for (const t of tables) written.add(t);
                },
                undefined,
                context,
              ),
            ),
        );
      } finally {
        // Lost races (deadlock, serialization failure, another process's writer lock) start
        // again from fresh reads; whatever an attempt may have written is reported either way.
        if (written.size > 0) changed(written);
      }
    });
  }
  return store;
}

/**
 * Runs `fn` in the transaction `begin` starts, and returns once its work is durable: on SQLite a
 * transaction may end inside a group whose COMMIT comes later (sqlite-writer.ts).
 */
export async function durably<T>(
  dialect: SqlDialect,
  begin: TransactionBuilder<any>,
  fn: (trx: Transaction<any>) => Promise<T>,
): Promise<T> {
  let durable: Promise<void> | undefined;
  const result = await begin.execute(async (trx) => {
    const out = await fn(trx);
    durable = dialect.durable?.();
    return out;
  });
  if (durable) await durable;
  return result;
}
