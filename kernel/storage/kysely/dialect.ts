/**
 * What differs between the SQL databases, as one interface with one implementation per database
 * (dialects/sqlite.ts, dialects/postgres.ts, dialects/mysql.ts; dialects/shared.ts holds what two
 * of them share). The rest of kysely/ is shared Kysely code that asks its dialect and never tests a
 * database's name. How a database's errors read is in errors.ts (no two databases share a code).
 */
import type { Kysely, SelectQueryBuilder, Transaction, TransactionBuilder } from 'kysely';
import type { Circuit } from '../../breaker.ts';
import type { ChangeStamps } from '../changes.ts';
import type { CopyOfUpdate, InsertBatch, PoolStats, Store, TableApi, Where } from '../contract.ts';
import type { ColumnSpec, Table } from '../table.ts';

export type SqlFlavor = 'postgres' | 'mysql' | 'sqlite';
export type Executor = Kysely<any> | Transaction<any>;
export type Row = Record<string, unknown>;
/** Told which tables a statement or transaction may have changed (see ../changes.ts). */
export type ChangedTables = (tables: Iterable<string>) => void;

/** An open database: what sqlite.ts and connect.ts hand to their dialect. */
export interface SqlConnection {
  /** Where writes and transactions run (on SQLite: the one writer connection of this process). */
  readonly db: Kysely<any>;
  /** Where plain reads outside a transaction run, when that is not `db` (SQLite's reader connection). */
  readonly readDb?: Kysely<any>;
  /** Closes the pool (and the embedded database). */
  close(): Promise<void>;
  /** The pool's circuit breaker (server databases; see bounded-pool.ts). */
  readonly circuit?: Circuit;
  /** The pool's counts, when the client library exposes them. */
  poolStats?(): PoolStats | null;
  /**
   * Starts watching for other processes' writes, bumping `stamps` when they happen. Absent when
   * the database gives no such signal (then the driver offers caches no change feed).
   */
  watchOthers?(stamps: ChangeStamps): OthersWatch;
  /**
   * SQLite, called at the end of a transaction's callback: the promise of the COMMIT that makes
   * its work durable, when that COMMIT is shared with transactions still to come (group commit,
   * sqlite-writer.ts); undefined when the transaction commits on its own.
   */
  durable?(): Promise<void> | undefined;
  /** The embedded database in a file: a consistent copy of it into the new file `out`. */
  backup?(out: string): Promise<{ path: string; bytes: number }>;
}

export interface OthersWatch {
  /** Whether other processes' writes reach the stamps at all right now (starts watching). */
  hearing(): boolean;
  /**
   * Brings the stamps up to date with everything committed before the call; false (read afresh)
   * while that cannot be proven. `arrival`: see `ChangeFeed.caughtUp`.
   */
  current(arrival?: number): boolean | Promise<boolean>;
  close(): Promise<void>;
}

/** One migration's work, as driver.ts splits it; the dialect decides how it is locked and wrapped. */
export interface MigrationWork {
  /** Whether the migration is recorded already (read under the migration lock). */
  done(db: Executor): Promise<boolean>;
  /** The schema operations (DDL). */
  schema(db: Executor): Promise<void>;
  /** The data step and the record of the migration, in one transaction. */
  data(trx: Transaction<any>): Promise<void>;
}

/** One row's UPDATE as the table API runs it, for a dialect that can do it in fewer statements. */
export interface RowUpdate {
  db: Executor;
  table: Table;
  /** The encoded columns to set (a versioned update's include the next version). */
  values: Row;
  /** The condition that picks the row: its id and the update's match. */
  filter: (eb: any) => any;
  /** Runs the statement as the table API runs a write (retries, change stamp). */
  write: <T>(run: () => Promise<T>) => Promise<T>;
  decode: (raw: Row) => Row;
  inTransaction: boolean;
  /** The table APIs of the same store (a versioned update inserts its copy through them). */
  tables: (table: Table) => TableApi<Row>;
}

/** A store's insert batches written in fewer statements (PostgreSQL). */
export interface BatchScope {
  db: Executor;
  tenantId: string | null;
  changed: ChangedTables;
}

export interface SqlDialect extends SqlConnection {
  /** The database, as `db.driver` and the storage driver's `kind` name it. */
  readonly flavor: SqlFlavor;
  /** Whether `start` applies pending migrations itself: the embedded database, no one else's. */
  readonly migratesOnStart: boolean;

  // Schema (schema.ts).
  columnType(spec: ColumnSpec): string;
  /** A default for a NOT NULL column added to a table that may already have rows. */
  addedColumnDefault(spec: ColumnSpec): string;
  /** What follows the column list of a CREATE TABLE. */
  readonly tableOptions: string;
  exists(
    db: Executor,
    kind: 'table' | 'column' | 'index',
    table: string,
    name?: string,
  ): Promise<boolean>;
  /** Creates the index unless it exists. */
  createIndex(
    db: Executor,
    table: string,
    name: string,
    unique: boolean,
    columns: string,
  ): Promise<void>;
  /**
   * Installs on an existing table what tells other processes of its writes, or drops it from a
   * table outside the change feed. Absent where the database tells without (SQLite).
   */
  changeSignal?(db: Executor, table: Table): Promise<void>;

  // Migrations (driver.ts).
  /** Runs `work` under the database's cross-process migration lock. */
  migrate(work: MigrationWork): Promise<void>;
  /** Runs `run` (a migration step) again while another process holds the lock it needs. */
  retryBusy<T>(run: () => Promise<T>): Promise<T>;

  // Stores and transactions (store.ts).
  /** A transaction at the isolation the hub's writes assume (see store.ts). */
  begin(db: Kysely<any>): TransactionBuilder<any>;
  /** A transaction's insert batches in one statement; false when they do not fit one. */
  insertAllAtOnce?(scope: BatchScope, batches: readonly InsertBatch[]): Promise<boolean>;
  /** The table API of a store outside a transaction, when its writes must run in one each. */
  outsideTransaction?(store: Store, table: Table, build: () => TableApi<Row>): TableApi<Row>;

  // Table API statements (table-api.ts).
  /** The row lock a read in a transaction takes (`FOR UPDATE`). */
  forUpdate(query: SelectQueryBuilder<any, any, any>): SelectQueryBuilder<any, any, any>;
  /** Whether a read orders by `column`, which `where` may pin to one value. */
  ordersBy(where: Where<any> | undefined, column: string): boolean;
  /** Runs `run` in a transaction such that, if it fails, the transaction can go on. */
  recoverable<T>(trx: Executor, run: () => Promise<T>): Promise<T>;
  /** `update`: the changed row, or null; `portable` is the update-then-read every database can do. */
  updateRow(update: RowUpdate, portable: () => Promise<Row | null>): Promise<Row | null>;
  /** `updateVersioned`: the row updated with its copy; `portable` as in versioned.ts. */
  updateVersioned(
    update: RowUpdate,
    copy: CopyOfUpdate,
    portable: () => Promise<Row | null>,
  ): Promise<Row | null>;
}
