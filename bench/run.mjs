#!/usr/bin/env node
/**
 * `npm run bench`: the shared load benchmark (`../shared/bench/bench.mjs`, nine scenarios through
 * the public API) against a real hub process that this script starts, plus start-up time and memory.
 *
 *   npm run bench                          embedded SQLite, then PostgreSQL + Redis, MySQL and the
 *                                          Firestore emulator when configured (databases.mjs)
 *   npm run bench -- --driver sqlite       one database only: sqlite, postgres, mysql, firestore, or
 *                                          default (no db section: the checkout's embedded default)
 *   --mixed only|skip                      after the shared bench, the mixed workload (mixed.mjs:
 *                                          24 readers of one collection's list, 8 writers in it)
 *                                          runs too; `only` runs it alone, `skip` leaves it out
 *   npm run bench -- --hub ../other        another checkout of the hub (to compare two trees in one run)
 *   npm run bench -- --node-args="--cpu-prof --cpu-prof-dir=/tmp/prof"  flags for the hub's node
 *   --duration <s> (10)  --warmup <s> (2)  --connections <n> (32)  --scenarios a,b  --json
 *   --bench-dir <dir>  where the shared bench lives (default ../shared/bench, or HUB_SHARED_BENCH)
 *
 * On SQLite and PostgreSQL it also prints the revisions the run left in the history and the
 * disk they take.
 *
 * The shared bench is copied, with its own lockfile, into node_modules/.cache/shared-bench and
 * installed there once (`npm ci`), so it runs with exactly the load generator it pins. Every run
 * uses a new temporary data directory or PostgreSQL database and Redis key prefix, dropped after.
 * The load generator shares the machine's cores with the hub and the databases: compare two hubs
 * in one run (`--hub`), never against a figure from another day.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { configuredDrivers, DRIVERS, hubEnv, prepareDatabase } from './databases.mjs';
import { commonOptions, sharedBenchDir, startHub, statusMiB, stopHub } from './hub-process.mjs';
import { runMixed } from './mixed.mjs';
import { freePort, printUsageAndExit } from './support.mjs';

const root = resolve(import.meta.dirname, '..');
const { values: args } = parseArgs({
  options: {
    driver: { type: 'string' },
    hub: { type: 'string', default: root },
    'node-args': { type: 'string', default: '' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '32' },
    scenarios: { type: 'string', default: '' },
    mixed: { type: 'string', default: '' },
    ...commonOptions,
  },
});
if (args.help) printUsageAndExit(import.meta.url);
const note = (message) => process.stderr.write(`[bench] ${message}\n`);
const drivers = args.driver ? [args.driver] : configuredDrivers();
for (const driver of drivers) {
  if (!DRIVERS.includes(driver))
    throw new Error(`--driver: expected one of ${DRIVERS.join(', ')}, got ${driver}`);
}

/** The shared bench's bench.mjs, installed with its pinned dependencies (hub-process.mjs). */
const sharedBench = async () => join(await sharedBenchDir(args['bench-dir'], note), 'bench.mjs');

/** Starts the hub of `--hub` on Node with `--node-args`. */
const startHubOf = (configPath, cwd, port, driver) =>
  startHub({
    hub: args.hub,
    configPath,
    cwd,
    port,
    env: hubEnv(driver),
    nodeArgs: args['node-args'].split(/\s+/).filter(Boolean),
  });

/** Runs the shared bench against `url`; resolves with its JSON lines. */
function runSharedBench(benchPath, url, secret, pid) {
  const env = {
    ...process.env,
    HUB_URL: url,
    HUB_ADMIN_TOKEN: secret,
    HUB_PID: String(pid),
    BENCH_DURATION: args.duration,
    BENCH_WARMUP: args.warmup,
    BENCH_CONNECTIONS: args.connections,
  };
  const scenarios = args.scenarios.split(',').filter(Boolean);
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [benchPath, ...scenarios], {
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`the shared bench exited with ${code}`));
      resolvePromise(
        out
          .split('\n')
          .filter((line) => line.startsWith('{'))
          .map((line) => JSON.parse(line)),
      );
    });
  });
}

async function benchDriver(driver, benchPath) {
  const dir = await mkdtemp(join(tmpdir(), 'hub-bench-'));
  const port = await freePort();
  const configPath = join(dir, 'server.yaml');
  const database = await prepareDatabase(driver, dir, port);
  await writeFile(configPath, database.yaml);
  const result = {
    driver: driver === 'postgres' ? 'postgres+redis' : driver,
    hub: resolve(args.hub),
    node: process.version,
  };
  try {
    note(`${result.driver}: starting on a fresh database`);
    let hub = await startHubOf(configPath, dir, port, driver);
    result.firstResponseFreshMs = Math.round(hub.firstResponseMs);
    const secret = hub.secret;
    if (!secret) throw new Error('the first start did not print an admin token');
    await stopHub(hub.child);

    note(`${result.driver}: starting on the existing database`);
    hub = await startHubOf(configPath, dir, port, driver);
    result.firstResponseExistingMs = Math.round(hub.firstResponseMs);
    await new Promise((r) => setTimeout(r, 3000));
    result.idleRssMiB = await statusMiB(hub.child.pid, 'VmRSS');
    try {
      result.scenarios =
        args.mixed === 'only'
          ? []
          : (await runSharedBench(benchPath, hub.url, secret, hub.child.pid)).filter(
              (line) => line.scenario !== '_server_memory',
            );
      if (args.mixed !== 'skip')
        result.mixed = await runMixed(hub.url, secret, {
          duration: Number(args.duration),
          warmup: Number(args.warmup),
        });
      result.peakRssMiB = await statusMiB(hub.child.pid, 'VmHWM');
    } finally {
      await stopHub(hub.child);
    }
    const history = await database.history?.();
    if (history) result.history = history;
  } finally {
    await database.drop();
    await rm(dir, { recursive: true, force: true });
  }
  return result;
}

function printTable(result) {
  console.log(`\n### ${result.driver} (${result.hub})\n`);
  console.log('| scenario | req/s | p50 ms | p99 ms | non-2xx | bytes |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const s of result.scenarios) {
    const non2xx =
      s.scenario === 'bad-token'
        ? Object.entries(s.status)
            .map(([code, n]) => `${code}: ${n}`)
            .join(', ')
        : s.non2xx;
    console.log(
      `| ${s.scenario} | ${s.rps} | ${s.latency_ms.p50} | ${s.latency_ms.p99} | ${non2xx} | ${s.bytes_per_response} |`,
    );
  }
  if (result.mixed)
    console.log(
      `\nmixed workload: ${result.mixed.reads_per_s} reads/s (p50 ${result.mixed.read_p50_ms} ms), ` +
        `${result.mixed.writes_per_s} writes/s (p50 ${result.mixed.write_p50_ms} ms), non-2xx ${result.mixed.non2xx}`,
    );
  if (result.history)
    console.log(
      `\nhistory: ${result.history.revisions} revisions in ${result.history.bytes} bytes ` +
        `(${Math.round(result.history.bytes / Math.max(1, result.history.revisions))} bytes each, indexes included)`,
    );
  console.log(
    `\nfirst response: ${result.firstResponseFreshMs} ms on a fresh database, ${result.firstResponseExistingMs} ms on an existing one; ` +
      `idle RSS ${result.idleRssMiB} MiB; peak RSS ${result.peakRssMiB} MiB`,
  );
}

async function main() {
  const benchPath = args.mixed === 'only' ? '' : await sharedBench();
  const results = [];
  for (const driver of drivers) results.push(await benchDriver(driver, benchPath));
  if (args.json) console.log(JSON.stringify(results));
  else results.forEach(printTable);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
