/**
 * How `workspace-hub reload` finds the running server: `start` writes its PID (and URL) to
 * `workspace-hub.pid` in the data directory, private to the service user (0600), and removes it on
 * a clean stop. After each SIGHUP reload the server writes the outcome beside it
 * (`workspace-hub.reload.json`, also 0600), which is how `reload` can print what happened.
 *
 * The data directory is the folder of the embedded database's file (`db.path`, by default
 * `./data/hub.db`), else `./data` (server databases, or an in-memory SQLite); relative paths are
 * relative to the working directory, as for the embedded database.
 */
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

export const PID_FILE = 'workspace-hub.pid';
export const RELOAD_FILE = 'workspace-hub.reload.json';

/** The data directory of a `db` section (any driver); an in-memory database has none. */
export function dataDirectory(db: unknown, cwd = process.cwd()): string {
  const file = (db as { path?: unknown } | undefined)?.path;
  const embedded = file !== undefined && (db as { driver?: unknown }).driver === 'sqlite';
  if (embedded && typeof file === 'string' && file !== ':memory:' && !file.startsWith('file:'))
    return resolve(cwd, dirname(file));
  return resolve(cwd, './data');
}

export interface PidInfo {
  pid: number;
  url: string;
  startedAt: string;
}

export interface ReloadRecord {
  pid: number;
  /** Milliseconds since the epoch when the reload finished. */
  at: number;
  outcome: unknown;
}

/** Writes a file readable by its owner only, even when it existed with wider permissions. */
function writePrivate(path: string, text: string): void {
  writeFileSync(path, text, { mode: 0o600 });
  chmodSync(path, 0o600);
}

/**
 * Writes the PID file; returns a function that removes it if it is still ours. A hub that took the
 * file over from another one still running (a second start in the same data directory, on another
 * port) hands it back on its way out, so `reload` reaches that one again.
 */
export function writePidFile(
  dir: string,
  info: PidInfo,
  previous: PidInfo | null = null,
): () => void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, PID_FILE);
  writePrivate(path, `${JSON.stringify(info)}\n`);
  return () => {
    if (readPidFile(dir)?.pid !== info.pid) return;
    rmSync(join(dir, RELOAD_FILE), { force: true });
    if (previous && previous.pid !== info.pid && isHubRunning(previous.pid))
      writePrivate(path, `${JSON.stringify(previous)}\n`);
    else rmSync(path, { force: true });
  };
}

export function readPidFile(dir: string): PidInfo | null {
  try {
    const info = JSON.parse(readFileSync(join(dir, PID_FILE), 'utf8')) as PidInfo;
    return Number.isInteger(info.pid) && info.pid > 0 ? info : null;
  } catch {
    return null;
  }
}

export function writeReloadRecord(dir: string, record: ReloadRecord): void {
  writePrivate(join(dir, RELOAD_FILE), `${JSON.stringify(record)}\n`);
}

export function readReloadRecord(dir: string): ReloadRecord | null {
  try {
    return JSON.parse(readFileSync(join(dir, RELOAD_FILE), 'utf8')) as ReloadRecord;
  } catch {
    return null;
  }
}

/**
 * Whether a hub server runs under this id. Where /proc exists, the process must also have been
 * started with the `start` command, so a stale file whose id was reused never gets a signal.
 */
export function isHubRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  let cmdline: string;
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return true; // no /proc here (macOS): the id alone has to do
  }
  const words = cmdline.split('\0');
  // Both the `start` command and a workspace-hub entry point: a reused id that now belongs to
  // `npm start`, `pm2 start` or anything else never gets the signal (SIGHUP would end it).
  const hub = words.some((word) =>
    /(?:^|[/\\])(?:workspace-hub|bin\.mjs|main\.js|deno\.ts)$/.test(word),
  );
  return hub && words.includes('start');
}
