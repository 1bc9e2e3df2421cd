#!/usr/bin/env node
// The installed `workspace-hub` command. It runs the compiled JavaScript in dist/ (built by
// `npm install` through the `prepare` script) while that build is newer than every source file;
// otherwise, or with WORKSPACE_HUB_FROM_SOURCE=1, it runs the TypeScript sources through tsx.
// So an edited source is never shadowed by an old build, and a fresh clone needs no extra step.
import { readdirSync, statSync } from 'node:fs';

// citty colours its usage text unless told not to; colour codes only belong on a terminal.
if (!process.stdout.isTTY && process.env.NO_COLOR === undefined) process.env.NO_COLOR = '1';

const root = new URL('..', import.meta.url);
const built = new URL('dist/cli/main.js', root);

/** Newest modification time of the source tree (files and directories, so additions count). */
function newestSource(dir) {
  let newest = statSync(dir).mtimeMs;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = new URL(entry.isDirectory() ? `${entry.name}/` : entry.name, dir);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (/\.(ts|tsx|json)$/.test(entry.name)) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

function buildIsFresh() {
  if (process.env.WORKSPACE_HUB_FROM_SOURCE === '1') return false;
  let builtAt;
  try {
    builtAt = statSync(built).mtimeMs;
  } catch {
    return false;
  }
  const sources = ['cli/', 'kernel/', 'plugins/'].map((dir) => newestSource(new URL(dir, root)));
  return Math.max(...sources, statSync(new URL('package.json', root)).mtimeMs) <= builtAt;
}

let main;
if (buildIsFresh()) {
  ({ main } = await import(built.href));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('./main.ts'));
}
await main(process.argv.slice(2));
