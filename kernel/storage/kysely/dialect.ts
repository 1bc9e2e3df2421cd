/**
 * What differs between the SQL databases: column types, how a unique violation or an outage is
 * reported, and how migrations take a cross-process lock. Everything else is shared Kysely code.
 */
import type { Kysely } from 'kysely';
import type { Circuit } from '../../breaker.ts';
import type { ChangeStamps } from '../changes.ts';
import type { PoolStats } from '../contract.ts';
import type { ColumnSpec } from '../table.ts';

export type SqlFlavor = 'postgres' | 'mysql' | 'sqlite';

export interface SqlDialect {
  readonly kind: 'sqlite' | 'postgres' | 'mysql';
  readonly flavor: SqlFlavor;
  /** Where writes and transactions run (on SQLite: the one writer connection of this process). */
  readonly db: Kysely<any>;
  /** Where plain reads outside a transaction run, when that is not `db` (SQLite's reader connection). */
  readonly readDb?: Kysely<any>;
  /** The embedded database's file, for backups; undefined for server databases. */
  readonly path?: string | null;
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

export function columnType(flavor: SqlFlavor, spec: ColumnSpec): string {
  switch (spec.kind) {
    case 'id':
    case 'string':
      return flavor === 'sqlite' ? 'TEXT' : `VARCHAR(${spec.maxLength ?? 255})`;
    case 'text':
    case 'json':
      return flavor === 'mysql' ? 'LONGTEXT' : 'TEXT';
    case 'int':
      return flavor === 'sqlite' ? 'INTEGER' : 'BIGINT';
    case 'bool':
      return flavor === 'mysql' ? 'TINYINT(1)' : flavor === 'sqlite' ? 'INTEGER' : 'BOOLEAN';
    case 'timestamp':
      // SQLite has no time type: ISO 8601 UTC text with milliseconds, which sorts like the time.
      return flavor === 'mysql' ? 'DATETIME(3)' : flavor === 'sqlite' ? 'TEXT' : 'TIMESTAMPTZ(3)';
  }
}

/** A default for a NOT NULL column added to a table that may already have rows. */
export function addedColumnDefault(flavor: SqlFlavor, spec: ColumnSpec): string {
  switch (spec.kind) {
    case 'int':
      return '0';
    case 'bool':
      return flavor === 'postgres' ? 'FALSE' : '0';
    case 'timestamp':
      // SQLite only adds columns with a constant default: the time of the migration, as text.
      if (flavor === 'sqlite') return `'${new Date().toISOString()}'`;
      return flavor === 'mysql' ? 'CURRENT_TIMESTAMP(3)' : 'CURRENT_TIMESTAMP';
    case 'json':
      return "'null'";
    default:
      return "''";
  }
}

interface DbError {
  code?: string;
  errno?: number;
  message?: string;
}

export function isUniqueError(error: unknown): boolean {
  const e = error as DbError;
  return (
    e?.code === '23505' ||
    e?.errno === 1062 ||
    e?.code === 'ER_DUP_ENTRY' ||
    e?.code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
  );
}

/** SQLite: another connection (another process) held the lock for longer than the busy timeout. */
export function isBusyError(error: unknown): boolean {
  const code = (error as DbError)?.code;
  return (
    typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'))
  );
}

/**
 * Deadlocks and serialization failures (PostgreSQL 40P01 / 40001, MySQL 1213 / lock wait timeout
 * 1205), and SQLite's SQLITE_BUSY (another process held the writer lock past the busy timeout):
 * the transaction lost a race and may simply be run again.
 */
export function isConflictError(error: unknown): boolean {
  const e = error as DbError;
  return (
    e?.code === '40P01' ||
    e?.code === '40001' ||
    e?.errno === 1213 ||
    e?.errno === 1205 ||
    isBusyError(error)
  );
}

/**
 * The database cannot answer: unreachable, restarted, our connection killed (`pg_terminate_backend`,
 * MariaDB `KILL`), or too slow (our own bounds in bounded-pool.ts, PostgreSQL's statement_timeout
 * 57014, MySQL's max_execution_time 3024); or a MariaDB table instance that a `KILL` left with
 * unreadable triggers ({@link isBrokenTriggerError}, healed by bounded-mysql.ts).
 */
const OUTAGE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'HUB_DB_TIMEOUT',
  'HUB_DB_CIRCUIT_OPEN',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_CON_COUNT_ERROR',
  'ER_CONNECTION_KILLED',
  'ER_SERVER_SHUTDOWN',
  'ER_QUERY_INTERRUPTED',
  'ER_QUERY_TIMEOUT',
  '57014',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08006',
  '53300',
]);

/** SQLite failures of the file rather than of the statement: disk full, I/O error, unreadable file. */
const SQLITE_OUTAGE = /^SQLITE_(IOERR|FULL|CANTOPEN|CORRUPT|NOTADB|READONLY|PERM|PROTOCOL|CLOSED)/;

export function isOutageError(error: unknown): boolean {
  const e = error as DbError;
  if (e?.code && (OUTAGE_CODES.has(e.code) || SQLITE_OUTAGE.test(e.code))) return true;
  if (isBrokenTriggerError(error)) return true;
  return /Connection terminated|timeout exceeded when trying to connect|Pool is closed|closed state|not queryable|Connection lost|database connection is not open/i.test(
    e?.message ?? '',
  );
}

/**
 * MariaDB could not read a table's triggers: ER_ERROR_IN_TRIGGER_BODY (1710), its "unknown
 * trigger" twin (1711), or — as MariaDB sends it after a `KILL` interrupted the parse — a plain
 * ER_PARSE_ERROR (1064) carrying the same message. The hub's own statements never fail to parse,
 * so the message is what tells.
 */
export function isBrokenTriggerError(error: unknown): boolean {
  const e = error as DbError;
  return (
    (e?.errno === 1710 || e?.errno === 1711 || e?.errno === 1064) &&
    /rigger .*has an error in its body/.test(e?.message ?? '')
  );
}

/**
 * Opening a connection failed because the database is gone or not answering: refused, reset,
 * unreachable, timed out, shutting down. Not a full server (53300, too many connections: it
 * answered) and not our own pool being closed.
 */
const NOT_A_STALL = new Set(['53300', 'ER_CON_COUNT_ERROR', 'HUB_DB_CIRCUIT_OPEN']);

export function isConnectFailure(error: unknown): boolean {
  const e = error as DbError;
  if (e?.code && NOT_A_STALL.has(e.code)) return false;
  if (isBrokenTriggerError(error)) return false;
  if (/Pool is closed|closed state/i.test(e?.message ?? '')) return false;
  return isOutageError(error);
}
