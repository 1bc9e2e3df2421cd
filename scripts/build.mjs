#!/usr/bin/env node
/**
 * Compiles the CLI, kernel and plugins to JavaScript in `dist/` (run by `npm install` through the
 * `prepare` script, and by the test setup), so the installed command starts without compiling
 * TypeScript on every run. Every `import()` stays a separate chunk: a command loads only what it
 * uses. `cli/bin.mjs` runs this build
 * only while it is newer than every source file, else the sources through tsx: never a stale build.
 */
import { build } from 'esbuild';
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = `${root}dist`;

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
