/**
 * A file a command writes what it exports into: created new (`wx`: an old file is never
 * overwritten) and readable by its owner only (0600), written with backpressure, and removed
 * again when the command fails part-way.
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { CliError } from './errors.ts';

export interface NewFile {
  /** Writes `chunk`, waiting while the stream is full; rejects once writing failed. */
  write(chunk: string): Promise<void>;
  /** Ends the file and waits until it is closed. */
  end(): Promise<void>;
  /** Stops writing and removes the file. */
  discard(): Promise<void>;
}

/** Creates `file` (an absolute path), or fails with a message naming it when it exists. */
export async function createNewFile(file: string): Promise<NewFile> {
  const out = createWriteStream(file, { flags: 'wx', mode: 0o600 });
  await once(out, 'open').catch((error: NodeJS.ErrnoException) => {
    throw new CliError(
      error.code === 'EEXIST'
        ? `${file} already exists; choose another name or remove it.`
        : `Cannot write ${file}: ${error.message}`,
    );
  });
  const failed = new Promise<never>((_, reject) => out.once('error', reject));
  failed.catch(() => undefined);
  return {
    async write(chunk) {
      if (!out.write(chunk)) await Promise.race([once(out, 'drain'), failed]);
    },
    async end() {
      out.end();
      await Promise.race([once(out, 'close'), failed]);
    },
    async discard() {
      out.destroy();
      await rm(file, { force: true });
    },
  };
}
