/**
 * The embedded database: one SQLite file through `libsql` (sqlite-native.ts) driven by Kysely's
 * `SqliteDialect`; the file itself (modes, backups) is sqlite-files.ts's, and what SQLite does
 * differently from the server databases is its dialect's (dialects/sqlite.ts).
 *
 * Several processes may open the same file (a server and the CLI): SQLite's own file locks keep
 * them consistent, WAL lets readers run while one writer writes. Within one process every write
 * goes through a single writer connection whose Kysely driver runs one query or transaction at a
 * time (a queue, rather than spinning on SQLITE_BUSY) and commits transactions in groups
 * (sqlite-writer.ts). Plain reads use a second connection and run while a write transaction is
 * open. What another process commits is seen by the next query, and by the next cache lookup
 * through `watchOthers` (data_version).
 */
import { resolve } from 'node:path';
import { Kysely, SqliteDialect } from 'kysely';
import type { SqliteDbConfig } from '../config.ts';
import type { ChangeStamps } from '../changes.ts';
import { batched } from '../batched.ts';
import type { OthersWatch, SqlConnection } from './dialect.ts';
import { backupSqlite, createFiles, refuseOldPgliteData, tightenModes } from './sqlite-files.ts';
import {
  openConnection,
  wrapDatabase,
  type NativeDatabase,
  type NativeStatement,
} from './sqlite-native.ts';
import { GroupCommitDialect } from './sqlite-writer.ts';

export interface SqliteOptions {
  path: string;
  synchronous: SqliteDbConfig['synchronous'];
}

/** Opens (creating if needed) the database file, or a private in-memory database for `:memory:`. */
export async function openSqlite(options: SqliteOptions): Promise<SqlConnection> {
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
    db,
    readDb,
    ...(memory ? {} : { backup: (out: string) => backupSqlite(readDb, out) }),
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
