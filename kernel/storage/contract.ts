/**
 * The storage contract: the small, driver-neutral API plugins use to read and write their tables.
 *
 * Every driver (SQLite, PostgreSQL, MySQL/MariaDB, Firestore) implements it and passes the same
 * contract suite (test/storage/contract-suite.ts). A handler only ever holds a {@link Store} bound to
 * its request's tenant, so it cannot read or write another tenant's rows by mistake.
 */
import type { Circuit } from '../breaker.ts';
import type { ChangeFeed } from './changes.ts';
import type { StoreContext } from './context.ts';
import type { Table, RowOfTable } from './table.ts';

/** A comparison on one column. A bare value means equality; `null` means "is null". */
export type Condition<V> =
  V | { in: readonly V[] } | { ne: V } | { gt: V } | { gte: V } | { lt: V } | { lte: V };

/** Conditions joined with AND. Only scalar columns (not `json`) may be filtered on. */
export type Where<Row> = { [K in keyof Row]?: Condition<Row[K]> };

export type SortDirection = 'asc' | 'desc';
export type OrderBy<Row> = readonly (readonly [keyof Row & string, SortDirection])[];

export interface FindOptions<Row> {
  where?: Where<Row>;
  orderBy?: OrderBy<Row>;
  /** Maximum number of rows. */
  limit?: number;
  /**
   * Keyset cursor: only rows strictly after this position in `orderBy` order. It must carry a value
   * for every `orderBy` column; end `orderBy` with a unique column (usually `id`) for stable pages.
   */
  after?: Partial<Row>;
}

/** Numeric columns of a row, for {@link TableApi.increment}. */
export type NumericKeys<Row> = { [K in keyof Row]: Row[K] extends number ? K : never }[keyof Row];

/** For {@link TableApi.updateVersioned}: where the updated row is copied, and how. */
export interface CopyOfUpdate {
  /** The table that receives the copy. */
  into: Table;
  /** The copy's own columns (its id, time, author…): all of them but the three below. */
  row: Record<string, unknown>;
  /** Columns of `into` that get the updated row's id, its new version and the whole row (JSON). */
  recordColumn: string;
  versionColumn: string;
  snapshotColumn: string;
  /** A column of `into` that gets the snapshot's size: the bytes of its JSON as stored. */
  sizeColumn?: string;
  /**
   * Told that size once the copy is written (inside the write's transaction when it runs in
   * one: act on it only once that has committed).
   */
  sized?: (bytes: number) => void;
}

/**
 * The row's columns that must hold these values for the update to happen: equality, or for a
 * number `{ lt }` (below it).
 */
export type VersionedMatch = Record<string, string | number | boolean | null | { lt: number }>;

export interface TableApi<Row> {
  get(id: string): Promise<Row | null>;
  /**
   * Reads the row and, inside a transaction, locks it until the transaction ends: another
   * transaction locking the same row waits (SQL `SELECT … FOR UPDATE`). Lock a parent row (a
   * collection, say) before reading its children to plan a write, and concurrent writers to the
   * same parent are serialized instead of acting on stale reads. Outside a transaction it is `get`.
   */
  getForUpdate(id: string): Promise<Row | null>;
  /** Rows for these ids, in no particular order; unknown ids are skipped. */
  getMany(ids: readonly string[]): Promise<Row[]>;
  find(options?: FindOptions<Row>): Promise<Row[]>;
  findOne(where: Where<Row>): Promise<Row | null>;
  count(where?: Where<Row>): Promise<number>;
  /** Inserts a complete row. Throws a `unique` {@link StorageError} on a duplicate id or unique key. */
  insert(row: Row): Promise<Row>;
  /**
   * Inserts complete rows (every column given, as for {@link insert}), all or none (one statement per few hundred rows on SQL, inside the
   * caller's transaction or one of its own). Throws like {@link insert}.
   */
  insertMany(rows: readonly Row[]): Promise<Row[]>;
  /** Inserts the row, or replaces every column of the row with the same id. */
  put(row: Row): Promise<Row>;
  /**
   * Changes some columns; returns the updated row, or null when no row has that id (or, with
   * `where`, when the row does not also match it: then nothing changes). One statement on
   * PostgreSQL (RETURNING).
   */
  update(id: string, patch: Partial<Omit<Row, 'id'>>, where?: Where<Row>): Promise<Row | null>;
  /**
   * Sets `patch` on the row with this id when it also holds the values of `match`, adds one to its
   * `version` column, and copies the changed row into another table (a revision; versioned.ts),
   * all or nothing. Returns the changed row, or null when no row matched (nothing is written).
   * One statement on PostgreSQL.
   */
  updateVersioned(
    id: string,
    patch: Partial<Omit<Row, 'id'>>,
    match: VersionedMatch,
    copy: CopyOfUpdate,
  ): Promise<Row | null>;
  /** Changes some columns of every matching row; returns how many rows matched. */
  updateWhere(where: Where<Row>, patch: Partial<Omit<Row, 'id'>>): Promise<number>;
  /** Returns whether a row was deleted. */
  delete(id: string): Promise<boolean>;
  /** Returns how many rows were deleted. */
  deleteWhere(where: Where<Row>): Promise<number>;
  /**
   * Atomically adds `deltas` to numeric columns and returns the row afterwards. When no row has
   * that id and `init` is given, inserts `init` with the deltas applied (an atomic upsert);
   * without `init` a missing row gives null.
   */
  increment(
    id: string,
    deltas: Partial<Record<NumericKeys<Row>, number>>,
    init?: Row,
  ): Promise<Row | null>;
}

export interface Store {
  /** The tenant this store is bound to, or null for the kernel's unscoped store. */
  readonly tenantId: string | null;
  /**
   * The change stamps of the driver this store reads (the same object for every store of one
   * driver; see changes.ts). Absent inside a transaction: nothing read there is cached.
   */
  readonly changes?: ChangeFeed;
  /**
   * The request or command the store was made for (context.ts), as `forTenant` was given it; a
   * transaction's store carries its opener's.
   */
  readonly context: StoreContext;
  table<T extends Table>(table: T): TableApi<RowOfTable<T>>;
  /**
   * Runs `fn` in one transaction: all of its writes land, or none do. Do every read before the
   * first write (Firestore requires it). A nested call joins the outer transaction. When the
   * database reports a conflict (deadlock, serialization failure) the whole of `fn` runs again
   * from fresh reads, a few times, so keep side effects other than storage writes out of it; a
   * conflict that persists reaches the caller as a `conflict` {@link StorageError}. Never wait,
   * inside `fn`, for the result of another transaction (one begun outside it): on the embedded
   * database that result may itself wait for `fn` to end (group commit, kysely/sqlite-writer.ts).
   */
  transaction<R>(fn: (tx: Store) => Promise<R>): Promise<R>;
  /**
   * Inserts each batch's rows into its table, all or none: in the caller's transaction, or in one
   * of its own. PostgreSQL writes them in one statement (each table's INSERT in a `WITH`), a round
   * trip instead of one per table; the other drivers insert batch after batch (`insertMany`).
   */
  insertAll(batches: readonly InsertBatch[]): Promise<void>;
}

/** Rows for one table, for {@link Store.insertAll}. */
export interface InsertBatch {
  table: Table;
  rows: readonly Record<string, unknown>[];
}

export type StorageErrorCode = 'unique' | 'invalid' | 'unavailable' | 'conflict';

/** A storage failure a caller may handle; anything else a driver throws is a bug or an outage. */
export class StorageError extends Error {
  readonly code: StorageErrorCode;
  readonly table?: string;
  /** For `unique`: the columns of the violated constraint, when the driver can tell. */
  readonly columns?: readonly string[];
  constructor(
    code: StorageErrorCode,
    message: string,
    details: { table?: string; columns?: readonly string[]; cause?: unknown } = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'StorageError';
    this.code = code;
    if (details.table !== undefined) this.table = details.table;
    if (details.columns !== undefined) this.columns = details.columns;
  }
}

export function isUniqueViolation(error: unknown): error is StorageError {
  return error instanceof StorageError && error.code === 'unique';
}

/**
 * A versioned schema step. Migrations are applied in the order the kernel lists them and each id is
 * recorded once it has run, so a step never runs twice. Schema operations are idempotent
 * (`createTables` creates missing tables at their current declaration, `addColumns` skips columns
 * that exist, `dropTables` skips tables that are gone), which lets an old database catch up
 * through every later step.
 */
export interface Migration {
  /** Unique and stable forever, e.g. `kernel/0001-identity`. */
  readonly id: string;
  readonly createTables?: readonly Table[];
  /**
   * Tables no plugin declares any more, removed with their rows (run before the other schema
   * operations). The declaration stays in the migration, so the step can name what it drops; an
   * import skips the rows of such a table in an older export.
   */
  readonly dropTables?: readonly Table[];
  readonly addColumns?: readonly { table: Table; columns: readonly string[] }[];
  readonly addIndexes?: readonly Table[];
  /** A data step, run after the schema operations with the unscoped store. */
  readonly run?: (store: Store) => Promise<void>;
  /**
   * Installs on these tables what tells other processes of their writes (PostgreSQL: a statement
   * trigger that NOTIFYs). Tables created later get it when they are created.
   */
  readonly changeFeed?: readonly Table[];
}

export type DriverKind = 'sqlite' | 'postgres' | 'mysql' | 'firestore';

/** A connection pool's counts, for metrics; a field the client library does not expose is absent. */
export interface PoolStats {
  /** Open connections. */
  total?: number;
  /** Connections checked out (running a query or holding a transaction). */
  inUse?: number;
  /** Callers waiting for a connection. */
  waiting?: number;
}

export interface StorageDriver {
  readonly kind: DriverKind;
  /**
   * Whether `start` applies pending migrations itself rather than refusing an out-of-date schema:
   * the embedded database, which no other host shares.
   */
  readonly migratesOnStart: boolean;
  /**
   * A store bound to one tenant: what handlers get. It carries `context` (the request's or the
   * command's; none when left out) into every transaction opened on it.
   */
  forTenant(tenantId: string, context?: StoreContext): Store;
  /** A store over every tenant, for the kernel only (migrations, tenant deletion); no context. */
  unscoped(): Store;
  /** Ids of the migrations already recorded, in the order they were applied. */
  appliedMigrations(): Promise<string[]>;
  /** Applies one migration's schema operations and data step, then records its id. */
  applyMigration(migration: Migration): Promise<void>;
  /**
   * Throws when the database cannot be reached. Cheap (SQL `SELECT 1`, a one-document Firestore
   * read): readiness probes call it on every check, under a short timeout of their own.
   */
  ping(): Promise<void>;
  /**
   * The embedded database only: writes a consistent copy of the whole database to a new file `out`
   * while the database stays in use. Absent on server databases (they have their own tools).
   */
  backup?(out: string): Promise<{ path: string; bytes: number }>;
  /**
   * The circuit breaker of a server database (kernel/breaker.ts): open while the database is
   * stalled, when calls fail at once. Absent on the embedded database.
   */
  readonly circuit?: Circuit;
  /** The pool's counts for metrics, or null when the driver has no pool (embedded, Firestore). */
  poolStats?(): PoolStats | null;
  /**
   * Change stamps for in-process caches (see changes.ts), proven to include every commit made
   * before they are asked for, by any process; null while that cannot be proven.
   */
  readonly changes: ChangeFeed;
  /** Closes every connection; waits for queries in flight. */
  close(): Promise<void>;
}
