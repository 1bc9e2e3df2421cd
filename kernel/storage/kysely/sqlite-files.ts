/**
 * The embedded database's file on disk: created with modes only the service user can read, refused
 * where an older version left PGlite data, recognised without being created (`hubSchemaOf`), and
 * copied while in use (`backupSqlite`).
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { sql, type Kysely } from 'kysely';
import { MIGRATIONS_TABLE } from './schema.ts';
import { native, type NativeDatabase } from './sqlite-native.ts';

/** Files the hub creates: readable by the service user only, whatever the umask. */
const FILE_MODE = 0o600;
const DIR_MODE = 0o700;

/**
 * Creates the directory (0700) and an empty database file (0600) unless they exist. Only before
 * SQLite opens the file: closing any other descriptor of it would drop this process's POSIX locks,
 * and another process could then take itself for the last user and delete the WAL under us.
 */
export function createFiles(path: string): void {
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
export function tightenModes(path: string): void {
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
export function refuseOldPgliteData(path: string): void {
  const dir = dirname(path);
  if (existsSync(join(dir, 'PG_VERSION')) && !existsSync(path)) {
    throw new Error(
      `${dir} holds a PGlite database from an earlier workspace-hub version, which is no longer supported. ` +
        'There is no converter: read what you need out with the previous version (its HTTP API) and re-create it on the new default, ' +
        `or point db.path somewhere else to start empty.`,
    );
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
 * A consistent copy of the open database into `out` (which must not exist) while other
 * connections go on reading and writing: `VACUUM INTO` reads one snapshot. The file is created
 * 0600 before SQLite writes into it.
 */
export async function backupSqlite(
  db: Kysely<any>,
  out: string,
): Promise<{ path: string; bytes: number }> {
  const target = resolve(out);
  if (existsSync(target)) throw new Error(`${target} already exists; choose a new file name.`);
  const dir = dirname(target);
  if (!existsSync(dir)) throw new Error(`The directory ${dir} does not exist.`);
  closeSync(openSync(target, 'wx', FILE_MODE));
  chmodSync(target, FILE_MODE);
  try {
    await sql`VACUUM INTO ${target}`.execute(db);
  } catch (error) {
    rmSync(target, { force: true });
    throw error;
  }
  chmodSync(target, FILE_MODE);
  return { path: target, bytes: statSync(target).size };
}
