/**
 * What the reads (table-api.ts) and the writes (table-writes.ts) of one table share: where its
 * statements run, its codec, and the runners that retry a statement and move the table's change
 * stamp after a write.
 */
import type { Store, TableApi, Where } from '../contract.ts';
import type { Table } from '../table.ts';
import { codecFor, type TableCodec } from './codec.ts';
import type { ChangedTables, Executor, Row, SqlDialect } from './dialect.ts';
import { whereExpression } from './query.ts';
import { retryStatement } from './retry.ts';

/** Where a table's statements run, and what they report to. */
export interface TableScope {
  dialect: SqlDialect;
  db: Executor;
  tenantId: string | null;
  inTransaction: boolean;
  changed: ChangedTables;
  /** Runs `fn` in a new transaction (used outside one, for writes of several statements). */
  transaction: Store['transaction'];
  /** The table APIs of the same store. */
  tableOf: (table: Table) => TableApi<Row>;
}

/** What the reads and the writes of one table share: its codec, executors and statement runners. */
export type TableParts = ReturnType<typeof tableParts>;

export function tableParts(scope: TableScope, table: Table) {
  const { dialect, db, tenantId, inTransaction, changed } = scope;
  const codec: TableCodec = codecFor(table);
  const name = table.name;
  // Outside a transaction a statement is retried on its own when another process holds a lock it
  // needs (SQLite); inside one, the whole transaction is.
  const statement = <T>(run: () => Promise<T>) => retryStatement(name, run, !inTransaction);
  /** A statement that writes: its table's change stamp moves once it has run (or failed). */
  const write = table.changeFeed
    ? <T>(run: () => Promise<T>) => statement(run).finally(() => changed([name]))
    : statement;
  /** Setting only bookkeeping columns (`untracked`) moves no stamp. */
  const untracked = new Set(table.untracked.map((column) => codec.column(column)));
  return {
    scope,
    table,
    dialect,
    db,
    tenantId,
    inTransaction,
    codec,
    name,
    where: (w?: Where<any>) => (eb: any) => whereExpression(eb, codec, tenantId, w),
    // Plain reads may use a separate connection (SQLite: they run while this process writes).
    reader: inTransaction ? db : (dialect.readDb ?? db),
    statement,
    write,
    writeColumns: <T>(values: Row, run: () => Promise<T>) =>
      untracked.size > 0 && Object.keys(values).every((column) => untracked.has(column))
        ? statement(run)
        : write(run),
    decode: (raw: Row) => codec.decodeRow(raw, tenantId === null),
  };
}
