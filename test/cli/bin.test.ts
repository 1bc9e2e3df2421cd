/**
 * Which code `cli/bin.mjs` runs: the compiled `dist/` only while it is newer than every source
 * file, else the TypeScript sources (so a stale build never runs). A stack trace shows which: it
 * names `dist/chunks/…` or the `.ts` file. The test setup has just built `dist/`.
 */
import { execFile } from 'node:child_process';
import { stat, utimes } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../../cli/bin.mjs', import.meta.url));
const SOURCE = fileURLToPath(new URL('../../kernel/config/load.ts', import.meta.url));
/** The project's own build directory (tsx, under node_modules, has a dist/ of its own). */
const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));

/** A config error with --verbose: its stack trace says where the loader's code came from. */
function stackOfConfigError(env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, '--verbose', '--config', 'missing.yaml', 'user', 'list'],
      { env: { ...process.env, NO_COLOR: '1', ...env }, timeout: 60_000 },
      (_error, _stdout, stderr) => resolve(stderr),
    );
  });
}

describe('cli/bin.mjs', () => {
  it('runs the compiled build when it is fresh', async () => {
    const stack = await stackOfConfigError();
    expect(stack).toContain('Config file not found');
    expect(stack).toContain(`${DIST}chunks/`);
    expect(stack).not.toContain('load.ts');
  });

  it('runs the sources with WORKSPACE_HUB_FROM_SOURCE=1', async () => {
    const stack = await stackOfConfigError({ WORKSPACE_HUB_FROM_SOURCE: '1' });
    expect(stack).toContain('kernel/config/load.ts');
    expect(stack).not.toContain(DIST);
  });

  it('runs the sources when one of them is newer than the build', async () => {
    const { atime, mtime } = await stat(SOURCE);
    const later = new Date(Date.now() + 3_600_000);
    await utimes(SOURCE, later, later);
    try {
      const stack = await stackOfConfigError();
      expect(stack).toContain('kernel/config/load.ts');
      expect(stack).not.toContain(DIST);
    } finally {
      await utimes(SOURCE, atime, mtime);
    }
  });
});
