/** The data-directory lock that keeps two processes from sharing one PGlite directory. */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirLockedError, LOCK_FILE, lockDataDir } from '../../kernel/storage/kysely/pglite-lock.ts';

describe('the PGlite data-directory lock', () => {
  const dirs: string[] = [];
  const newDir = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hub-lock-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(async () => {
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  it('refuses a second open of a directory this process holds, and allows it after release', async () => {
    const dir = await newDir();
    const release = lockDataDir(dir);
    expect(() => lockDataDir(dir)).toThrow(DataDirLockedError);
    release();
    lockDataDir(dir)();
  });

  it('refuses a directory held by another live process', async () => {
    const dir = await newDir();
    // The parent of this test process is alive for as long as the test runs.
    await writeFile(join(dir, LOCK_FILE), `${process.ppid}\n2026-01-01T00:00:00.000Z\n`);
    expect(() => lockDataDir(dir)).toThrow(`in use by another workspace-hub process (pid ${process.ppid})`);
  });

  it('takes over a stale lock, even one naming our own pid from an earlier run', async () => {
    const dir = await newDir();
    // A container restarted with the same pid leaves a lock file that names it.
    await writeFile(join(dir, LOCK_FILE), `${process.pid}\n2026-01-01T00:00:00.000Z\n`);
    const release = lockDataDir(dir);
    expect((await readFile(join(dir, LOCK_FILE), 'utf8')).split('\n')[0]).toBe(String(process.pid));
    release();
    await writeFile(join(dir, LOCK_FILE), '2147483646\n2026-01-01T00:00:00.000Z\n');
    lockDataDir(dir)();
  });
});
