/**
 * The embedded database: one SQLite file through `libsql` (better-sqlite3's synchronous API, a
 * prebuilt binary from the npm registry; it loads on Node and on Deno) driven by Kysely's
 * `SqliteDialect`.
 *
 * Several processes may open the same file (a server and the CLI): SQLite's own file locks keep
 * them consistent, WAL lets readers run while one writer writes. Within one process every write
 * goes through a single writer connection whose Kysely driver runs one query or transaction at a
 * time (a queue, rather than spinning on SQLITE_BUSY) and commits transactions in groups
 * (sqlite-writer.ts). Plain reads use a second connection and run while a write transaction is
 * open. What another process commits is seen by the next query, and by the next cache lookup
 * through `watchOthers` (data_version).
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { Kysely, SqliteDialect, type SqliteDatabase, type SqliteStatement } from 'kysely';
import type { SqliteDbConfig } from '../config.ts';
import type { ChangeStamps } from '../changes.ts';
import { batched } from '../batched.ts';
import type { OthersWatch, SqlDialect } from './dialect.ts';
import { MIGRATIONS_TABLE } from './schema.ts';
import { GroupCommitDialect } from './sqlite-writer.ts';

/**
 * How long one statement waits for another process's lock before SQLITE_BUSY. libsql waits inside
 * its synchronous call, with the event loop stopped, so this stays tiny: the real waiting is the
 * driver's retries, which pause between attempts with the event loop free (retry.ts).
 */
export const BUSY_TIMEOUT_MS = 5;
/** Files the hub creates: readable by the service user only, whatever the umask. */
const FILE_MODE = 0o600;
const DIR_MODE = 0o700;
const STATEMENT_CACHE = 256;

/** What we use of libsql's (better-sqlite3-compatible) API. */
interface NativeStatement {
  readonly reader: boolean;
  all(params: readonly unknown[]): unknown[];
  get(params: readonly unknown[]): unknown;
  run(params: readonly unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  iterate(params: readonly unknown[]): IterableIterator<unknown>;
}
interface NativeDatabase {
  prepare(sql: string): NativeStatement;
  exec(sql: string): void;
  close(): void;
}
type NativeConstructor = new (path: string, options?: Record<string, unknown>) => NativeDatabase;

let nativeConstructor: NativeConstructor | undefined;
function native(): NativeConstructor {
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
function wrapDatabase(db: NativeDatabase): SqliteDatabase {
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

/**
 * Creates the directory (0700) and an empty database file (0600) unless they exist. Only before
 * SQLite opens the file: closing any other descriptor of it would drop this process's POSIX locks,
 * and another process could then take itself for the last user and delete the WAL under us.
 */
function createFiles(path: string): void {
  const dir = dirname(path);
  if (!existsSync(dir)) {
    mkdirSync(dir, { recursive: true, mode: DIR_MODE });
    // mkdir applies the umask; the mode must not depend on it.
    chmodSync(dir, DIR_MODE);
  }
  try {
    if (!existsSync(path)) closeSync(openSync(path, 'wx', FILE_MODE));
  } catch (error) {
    // Another process created it a moment ago.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/** The database, -wal and -shm files readable by the service user only (the last two take the database file's mode when SQLite creates them). */
function tightenModes(path: string): void {
  for (const file of [path, `${path}-wal`, `${path}-shm`, `${path}-journal`]) {
    try {
      if ((statSync(file).mode & 0o777) !== FILE_MODE) chmodSync(file, FILE_MODE);
    } catch {
      // Not there (yet).
    }
  }
}

/**
 * A data directory PGlite left behind (the embedded default before SQLite): starting an empty
 * SQLite database beside it would look like a hub that lost all its data.
 */
function refuseOldPgliteData(path: string): void {
  const dir = dirname(path);
  if (existsSync(join(dir, 'PG_VERSION')) && !existsSync(path)) {
    throw new Error(
      `${dir} holds a PGlite database from an earlier workspace-hub version, which is no longer supported. ` +
        'There is no converter: read what you need out with the previous version (its HTTP API) and re-create it on the new default, ' +
        `or point db.path somewhere else to start empty.`,
    );
  }
}

function openConnection(path: string, synchronous: SqliteDbConfig['synchronous']): NativeDatabase {
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

export interface SqliteOptions {
  path: string;
  synchronous: SqliteDbConfig['synchronous'];
}

/** Opens (creating if needed) the database file, or a private in-memory database for `:memory:`. */
export async function openSqlite(options: SqliteOptions): Promise<SqlDialect> {
  const memory = options.path === ':memory:';
  const path = memory ? ':memory:' : resolve(options.path);
  if (!memory) {
    refuseOldPgliteData(path);
    createFiles(path);
    tightenModes(path);
  }
  const writer = openConnection(path, options.synchronous);
  let reader: NativeDatabase | undefined;
  try {
    if (!memory) {
      reader = openConnection(path, options.synchronous);
      // Now the -wal and -shm files exist; an older version may have made them with a looser mode.
      tightenModes(path);
    }
  } catch (error) {
    writer.close();
    throw error;
  }
  const writerDb = wrapDatabase(writer);
  const readerDb = reader ? wrapDatabase(reader) : undefined;
  const writerDialect = new GroupCommitDialect({ database: writerDb });
  const db = new Kysely<any>({ dialect: writerDialect });
  // In memory there is only one database, so reads share the writer connection.
  const readDb = readerDb
    ? new Kysely<any>({ dialect: new SqliteDialect({ database: readerDb }) })
    : db;
  return {
    kind: 'sqlite',
    flavor: 'sqlite',
    db,
    readDb,
    path: memory ? null : path,
    watchOthers: (stamps) => watchDataVersion(writer, stamps),
    durable: () => writerDialect.driver.durable(),
    async close() {
      // destroy() waits for the query or transaction in flight on each connection.
      await db.destroy();
      if (readDb !== db) await readDb.destroy();
      readerDb?.close();
      if (!memory) await checkpoint(writer);
      writerDb.close();
    },
  };
}

/** How often, and how far apart, a closing connection retries a checkpoint a reader holds up. */
const CHECKPOINT_ATTEMPTS = 10;
const CHECKPOINT_RETRY_MS = 20;

/**
 * Copies every committed page from the WAL into the database file and empties the WAL (TRUNCATE),
 * so the file alone holds all the data once the hub has stopped: what an operator copies as a cold
 * backup. SQLite does this by itself only when the last connection of every process closes, which
 * a stopping server cannot count on. Another process that is reading at that moment holds it up
 * briefly; if it still reads after a few tries, its own close (or the next one) checkpoints, and the
 * WAL keeps every commit meanwhile.
 */
async function checkpoint(writer: NativeDatabase): Promise<void> {
  for (let attempt = 1; attempt <= CHECKPOINT_ATTEMPTS; attempt++) {
    try {
      const row = writer.prepare('PRAGMA wal_checkpoint(TRUNCATE)').get([]) as { busy?: unknown };
      if (!row?.busy) return;
    } catch {
      // Busy with another process's write: the same as a busy answer.
    }
    await new Promise((done) => setTimeout(done, CHECKPOINT_RETRY_MS));
  }
}

/** What {@link hubSchemaOf} finds at a `db.path`. */
export type SqliteFileState = 'missing' | 'not-sqlite' | 'no-hub-schema' | 'hub';

/**
 * Whether `path` holds a hub database, without creating anything: commands other than `start` and
 * `migrate` refuse to set up a new database where the operator pointed at an existing one (a
 * mistyped `db.path`, a cold copy missing its data).
 */
export function hubSchemaOf(path: string): SqliteFileState {
  const file = resolve(path);
  refuseOldPgliteData(file);
  if (!existsSync(file)) return 'missing';
  let db: NativeDatabase;
  try {
    db = new (native())(file);
  } catch {
    return 'not-sqlite';
  }
  try {
    const found = db
      .prepare("SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = ?")
      .get([MIGRATIONS_TABLE]);
    return found ? 'hub' : 'no-hub-schema';
  } catch {
    return 'not-sqlite';
  } finally {
    db.close();
  }
}

/**
 * Other processes' commits, from SQLite itself: `PRAGMA data_version` on a connection changes
 * exactly when another connection has committed since it was last asked. Asked on the writer
 * connection, whose own commits are this process's writes (already bumped by the store), it names
 * only other processes' writes (a CLI command, say). A synchronous check against shared memory,
 * made before any cached value is served (shared by the requests of one turn of the event loop,
 * storage/batched.ts): nothing another process committed is ever missed.
 */
function watchDataVersion(writer: NativeDatabase, stamps: ChangeStamps): OthersWatch {
  let statement: NativeStatement | undefined;
  let seen: unknown;
  const current = () => {
    try {
      // get(), not all(): it steps and resets at once, leaving no cursor open on the writer.
      statement ??= writer.prepare('PRAGMA data_version');
      const version = (statement.get([]) as { data_version?: unknown } | undefined)?.data_version;
      if (version !== seen) {
        if (seen !== undefined) stamps.bumpAll();
        seen = version;
      }
      return true;
    } catch {
      // The connection is closed (a reload swapped the database): cache nothing.
      statement = undefined;
      return false;
    }
  };
  // Asking costs a statement, so only the proof asks (once per cache lookup that could hit): a
  // stamp taken without asking may be older than another process's commit, which is safe, since
  // a value is served only after `current()` and one loaded meanwhile is read afresh from SQLite.
  // The statement is kept only while asking works (it is dropped when the connection fails).
  const hearing = () => statement !== undefined || current();
  // The requests that arrived in one turn of the event loop share one statement, asked once the
  // turn is over (after the last of them arrived): under load that is one for many requests.
  const proof = batched(async () => current(), 1, 'turn');
  return { hearing, current: (arrival) => proof(arrival), close: async () => undefined };
}

/**
 * A consistent copy of the open database into `out` (which must not exist) while other
 * connections go on reading and writing: `VACUUM INTO` reads one snapshot. The file is created
 * 0600 before SQLite writes into it.
 */
export async function backupSqlite(
  dialect: SqlDialect,
  out: string,
): Promise<{ path: string; bytes: number }> {
  const target = resolve(out);
  if (existsSync(target)) throw new Error(`${target} already exists; choose a new file name.`);
  const dir = dirname(target);
  if (!existsSync(dir)) throw new Error(`The directory ${dir} does not exist.`);
  closeSync(openSync(target, 'wx', FILE_MODE));
  chmodSync(target, FILE_MODE);
  try {
    const { sql } = await import('kysely');
    await sql`VACUUM INTO ${target}`.execute(dialect.readDb ?? dialect.db);
  } catch (error) {
    const { rmSync } = await import('node:fs');
    rmSync(target, { force: true });
    throw error;
  }
  chmodSync(target, FILE_MODE);
  return { path: target, bytes: statSync(target).size };
}
