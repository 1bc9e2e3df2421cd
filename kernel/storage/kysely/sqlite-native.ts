/**
 * SQLite's connections through `libsql` (better-sqlite3's synchronous API, a prebuilt binary from
 * the npm registry; it loads on Node and on Deno): opening one with the hub's pragmas, and
 * Kysely's `SqliteDatabase` over it.
 */
import { createRequire } from 'node:module';
import type { SqliteDatabase, SqliteStatement } from 'kysely';
import type { SqliteDbConfig } from '../config.ts';

/**
 * How long one statement waits for another process's lock before SQLITE_BUSY. libsql waits inside
 * its synchronous call, with the event loop stopped, so this stays tiny: the real waiting is the
 * driver's retries, which pause between attempts with the event loop free (retry.ts).
 */
export const BUSY_TIMEOUT_MS = 5;
const STATEMENT_CACHE = 256;

/** What we use of libsql's (better-sqlite3-compatible) API. */
export interface NativeStatement {
  readonly reader: boolean;
  all(params: readonly unknown[]): unknown[];
  get(params: readonly unknown[]): unknown;
  run(params: readonly unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  iterate(params: readonly unknown[]): IterableIterator<unknown>;
}
export interface NativeDatabase {
  prepare(sql: string): NativeStatement;
  exec(sql: string): void;
  close(): void;
}
type NativeConstructor = new (path: string, options?: Record<string, unknown>) => NativeDatabase;

let nativeConstructor: NativeConstructor | undefined;
export function native(): NativeConstructor {
  // A CommonJS addon: require keeps it out of the module graph of hubs that never use SQLite.
  nativeConstructor ??= createRequire(import.meta.url)('libsql') as NativeConstructor;
  return nativeConstructor;
}

/** Values SQLite can bind: timestamps as ISO 8601 UTC text (sorts like time), booleans as 0/1. */
function bindable(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value;
}
const bindAll = (params: readonly unknown[]) => params.map(bindable);

/**
 * Kysely's `SqliteDatabase` over a libsql connection: prepared statements are kept (Kysely
 * prepares each query anew), and parameters are converted to what SQLite can bind.
 */
export function wrapDatabase(db: NativeDatabase): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>();
  let open = true;
  return {
    // Kysely closes only a database it has used; ours are open from the start, so close() is also
    // called directly, and must be safe to call twice.
    close() {
      if (!open) return;
      open = false;
      cache.clear();
      db.close();
    },
    prepare(sql: string): SqliteStatement {
      // A request that outlived a closed driver (a reload swapped it): an outage, not a bug.
      if (!open)
        throw Object.assign(new Error('The database connection is closed'), {
          code: 'SQLITE_CLOSED',
        });
      const hit = cache.get(sql);
      if (hit) return hit;
      const statement = db.prepare(sql);
      const wrapped: SqliteStatement = {
        reader: statement.reader,
        all: (params) => statement.all(bindAll(params)),
        run: (params) => statement.run(bindAll(params)),
        iterate: (params) => statement.iterate(bindAll(params)),
      };
      if (cache.size >= STATEMENT_CACHE) cache.delete(cache.keys().next().value!);
      cache.set(sql, wrapped);
      return wrapped;
    },
  };
}

export function openConnection(
  path: string,
  synchronous: SqliteDbConfig['synchronous'],
): NativeDatabase {
  const Database = native();
  const db = new Database(path);
  try {
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    if (path !== ':memory:') db.exec('PRAGMA journal_mode = WAL');
    db.exec(`PRAGMA synchronous = ${synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
    db.exec('PRAGMA foreign_keys = ON');
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}
