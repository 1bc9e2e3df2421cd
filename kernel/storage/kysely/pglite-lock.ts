/**
 * PGlite has no working lock on its data directory: a second process opens it without error and
 * one of them silently loses committed writes. So the hub holds its own lock file, and a second
 * process gets a clear refusal instead.
 */
import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const LOCK_FILE = 'workspace-hub.lock';

export class DataDirLockedError extends Error {
  constructor(dir: string, pid: number) {
    super(
      `The data directory "${dir}" is in use by another workspace-hub process (pid ${pid}). ` +
        'Stop that process first, use its HTTP admin API, or use PostgreSQL/MySQL to share a database between processes.',
    );
    this.name = 'DataDirLockedError';
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Directories this process holds: a lock file naming our own pid is ours only if listed here. */
const held = new Set<string>();

/** Takes the lock (creating the directory if needed); returns the function that releases it. */
export function lockDataDir(dataDir: string): () => void {
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, LOCK_FILE);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(path, `${process.pid}\n${new Date().toISOString()}\n`, { flag: 'wx' });
      held.add(dir);
      return () => {
        held.delete(dir);
        try {
          if (Number(readFileSync(path, 'utf8').split('\n')[0]) === process.pid) unlinkSync(path);
        } catch {
          // Already gone.
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(readFileSync(path, 'utf8').split('\n')[0]);
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && alive(owner)) throw new DataDirLockedError(dir, owner);
      // Our own pid: either we hold it already, or it is left from an earlier run that had the same
      // pid (pid 1 in a restarted container) and is stale.
      if (owner === process.pid && held.has(dir)) throw new DataDirLockedError(dir, owner);
      // A stale lock from a process that died without releasing it.
      try {
        unlinkSync(path);
      } catch {
        // Someone else removed it first; try again.
      }
    }
  }
  throw new Error(`Could not lock the data directory "${dir}"`);
}
