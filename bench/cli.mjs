#!/usr/bin/env node
/**
 * Start-up of the command line tool, measured against `node -e 0` in the same run (the machine's
 * own floor): `--help`, `user list`, and `start` until `/health` answers. Medians of several runs.
 *
 *   node bench/cli.mjs --config <server.yaml>   a migrated database (e.g. PostgreSQL) for user list
 *                                                and start; without it only --help is measured
 *   --runs <n> (default 10)  --json
 *
 * Goals (issue 13): --help ≤ 4×, user list on PostgreSQL ≤ 10×, start to /health ≤ 2 s.
 */
import { spawn, spawnSync } from 'node:child_process';
import { freePort } from './support.mjs';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const root = resolve(import.meta.dirname, '..');
const bin = resolve(root, 'cli/bin.mjs');
const { values: args } = parseArgs({
  options: {
    config: { type: 'string' },
    runs: { type: 'string', default: '10' },
    json: { type: 'boolean', default: false },
  },
});
const runs = Number(args.runs);
const config = args.config ? resolve(args.config) : undefined;
const cwd = config ? dirname(config) : root;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function timeCommand(argv) {
  const times = [];
  for (let i = 0; i < runs + 1; i++) {
    const started = performance.now();
    const { status, stderr } = spawnSync(process.execPath, argv, {
      cwd,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    if (status !== 0) throw new Error(`${argv.join(' ')} failed: ${stderr}`);
    if (i > 0) times.push(performance.now() - started); // the first run warms the file cache
  }
  return median(times);
}

async function timeStart() {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const port = await freePort();
    const started = performance.now();
    const child = spawn(
      process.execPath,
      [bin, 'start', '--config', config, '--port', String(port)],
      { cwd, stdio: 'ignore' },
    );
    for (;;) {
      if (child.exitCode !== null) throw new Error('the server exited before answering /health');
      try {
        if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) break;
      } catch {
        /* not listening yet */
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    times.push(performance.now() - started);
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
  return median(times);
}

// Measure the build of the current sources (bin.mjs would run the slower sources if it were stale).
spawnSync(process.execPath, [resolve(root, 'scripts/build.mjs')], { stdio: 'inherit' });
const floor = timeCommand(['-e', '0']);
const results = { 'node -e 0': floor, '--help': timeCommand([bin, '--help']) };
if (config) {
  results['user list'] = timeCommand([bin, 'user', 'list', '--config', config]);
  results['start to /health'] = await timeStart();
}
if (args.json)
  console.log(
    JSON.stringify(
      Object.fromEntries(
        Object.entries(results).map(([k, v]) => [k, { ms: Math.round(v), ratio: v / floor }]),
      ),
    ),
  );
else
  for (const [name, ms] of Object.entries(results))
    console.log(
      `${name.padEnd(18)} ${String(Math.round(ms)).padStart(6)} ms  ${(ms / floor).toFixed(1)}× node -e 0`,
    );
