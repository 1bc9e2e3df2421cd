#!/usr/bin/env node
/**
 * Compiles the CLI, kernel and plugins to JavaScript in `dist/` (run by `npm install` through the
 * `prepare` script, and by the test setup), so the installed command starts without compiling
 * TypeScript on every run. Every `import()` stays a separate chunk: a command loads only what it
 * uses. `cli/bin.mjs` runs this build
 * only while it is newer than every source file, else the sources through tsx: never a stale build.
 */
import { build } from 'esbuild';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const target = `${root}dist`;
// Built beside dist/ and moved in file by file (each rename replaces a file atomically), so a
// command already running from dist/ never finds a chunk missing while a build replaces it.
const outdir = `${root}dist.tmp-${process.pid}`;

await rm(outdir, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: { 'cli/main': 'cli/main.ts' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // The pure-ESM libraries every command uses (zod, kysely, hono, yaml, citty) are bundled: one
  // file instead of hundreds of modules to resolve is most of the start-up time saved. Database
  // and service clients stay external: they are loaded only when configured, and some are native
  // or CommonJS.
  external: [
    'pg',
    'mysql2',
    'ioredis',
    'openai',
    '@google-cloud/firestore',
    'libsql',
    '@libsql/*',
    'prom-client',
    'tsx',
  ],
  banner: {
    js: "import { createRequire as __hubRequire } from 'node:module'; const require = __hubRequire(import.meta.url);",
  },
  chunkNames: 'chunks/[name]-[hash]',
  sourcemap: 'linked',
  jsx: 'automatic',
  jsxImportSource: 'hono/jsx',
  logLevel: 'warning',
});

/** Every file under `dir`, as paths relative to it. */
async function filesUnder(dir) {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath ?? entry.path, entry.name)));
}

const built = await filesUnder(outdir);
for (const file of built) {
  await mkdir(dirname(join(target, file)), { recursive: true });
  await rename(join(outdir, file), join(target, file));
}
// Files of an older build that this one no longer has (a source was removed or changed).
const kept = new Set(built);
for (const file of await filesUnder(target))
  if (!kept.has(file)) await rm(join(target, file), { force: true });
await rm(outdir, { recursive: true, force: true });
