/**
 * Driver errors as StorageErrors: SQL text and driver details never reach a client. The codes of
 * all three databases are told apart here, as no two of them share a code.
 */
import { StorageError } from '../contract.ts';

/** Turns driver errors into StorageErrors and throws them; rethrows what is no storage failure. */
export function mapError(error: unknown, table?: string): never {
  if (error instanceof StorageError || error instanceof TypeError) throw error;
  if (isUniqueError(error))
    throw new StorageError('unique', `Duplicate value in ${table ?? 'a table'}`, {
      ...(table ? { table } : {}),
      cause: error,
    });
  if (isConflictError(error))
    throw new StorageError('conflict', 'The write conflicted with a concurrent transaction', {
      ...(table ? { table } : {}),
      cause: error,
    });
  if (isOutageError(error))
    throw new StorageError('unavailable', 'The database cannot be reached', {
      ...(table ? { table } : {}),
      cause: error,
    });
  throw error;
}

/** mapError as a value: the StorageError, or rethrows what is not a storage failure. */
export function catchStorageError(error: unknown): StorageError {
  try {
    mapError(error);
  } catch (mapped) {
    if (mapped instanceof StorageError) return mapped;
    throw mapped;
  }
}

/** A lock another process kept past every attempt: the database is unavailable for now (503). */
export function busyUnavailable(error: unknown, table?: string): StorageError {
  return new StorageError('unavailable', 'The database is locked by another process', {
    ...(table ? { table } : {}),
    cause: error,
  });
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
