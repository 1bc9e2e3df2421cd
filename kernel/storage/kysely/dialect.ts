/**
 * What differs between the SQL databases: column types, how a unique violation or an outage is
 * reported, and how migrations take a cross-process lock. Everything else is shared Kysely code.
 */
import type { Kysely } from 'kysely';
import type { PoolStats } from '../contract.ts';
import type { ColumnSpec } from '../table.ts';

export type SqlFlavor = 'postgres' | 'mysql';

export interface SqlDialect {
  readonly kind: 'pglite' | 'postgres' | 'mysql';
  readonly flavor: SqlFlavor;
  readonly db: Kysely<any>;
  /** Closes the pool (and the embedded database). */
  close(): Promise<void>;
  /** The pool's counts, when the client library exposes them. */
  poolStats?(): PoolStats | null;
}

export function columnType(flavor: SqlFlavor, spec: ColumnSpec): string {
  switch (spec.kind) {
    case 'id':
    case 'string':
      return `VARCHAR(${spec.maxLength ?? 255})`;
    case 'text':
    case 'json':
      return flavor === 'mysql' ? 'LONGTEXT' : 'TEXT';
    case 'int':
      return 'BIGINT';
    case 'bool':
      return flavor === 'mysql' ? 'TINYINT(1)' : 'BOOLEAN';
    case 'timestamp':
      return flavor === 'mysql' ? 'DATETIME(3)' : 'TIMESTAMPTZ(3)';
  }
}

/** A default for a NOT NULL column added to a table that may already have rows. */
export function addedColumnDefault(flavor: SqlFlavor, spec: ColumnSpec): string {
  switch (spec.kind) {
    case 'int':
      return '0';
    case 'bool':
      return flavor === 'mysql' ? '0' : 'FALSE';
    case 'timestamp':
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
  return e?.code === '23505' || e?.errno === 1062 || e?.code === 'ER_DUP_ENTRY';
}

/**
 * Deadlocks and serialization failures (PostgreSQL 40P01 / 40001, MySQL 1213 / lock wait timeout
 * 1205): the transaction lost a race and may simply be run again.
 */
export function isConflictError(error: unknown): boolean {
  const e = error as DbError;
  return e?.code === '40P01' || e?.code === '40001' || e?.errno === 1213 || e?.errno === 1205;
}

const OUTAGE_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH',
  'PROTOCOL_CONNECTION_LOST', 'ER_CON_COUNT_ERROR', '57P01', '57P02', '57P03', '08000', '08001', '08003', '08006', '53300',
]);

export function isOutageError(error: unknown): boolean {
  const e = error as DbError;
  if (e?.code && OUTAGE_CODES.has(e.code)) return true;
  return /Connection terminated|timeout exceeded when trying to connect|Pool is closed|closed state/i.test(e?.message ?? '');
}
