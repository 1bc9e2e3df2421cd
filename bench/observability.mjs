#!/usr/bin/env node
/**
 * The per-request cost of the access log and metrics: one run starts the same hub twice on the
 * embedded database — (a) `logging.accessLog: true` at level info, JSON lines to a pipe, and
 * metrics on; (b) `logging.accessLog: false` and `metrics.enabled: false` — and loads
 * `GET /auth/session` with autocannon against each, alternating a and b for `--rounds` rounds.
 *
 *   node bench/observability.mjs [--duration 5] [--connections 16] [--rounds 2]
 */
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { freePort } from './support.mjs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const root = resolve(import.meta.dirname, '..');
const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '16' },
    rounds: { type: 'string', default: '2' },
  },
});

async function start(dir, name, extra) {
  const port = await freePort();
  const config = join(dir, `${name}.yaml`);
  await writeFile(
    config,
    `server:\n  port: ${port}\ndb:\n  driver: sqlite\n  path: ${join(dir, 'data', 'hub.db')}\n${extra}`,
  );
  const child = spawn(process.execPath, [join(root, 'cli/bin.mjs'), 'start', '--config', config], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let logLines = 0;
  child.stdout.on('data', (d) => (stdout += d));
  // Read and count the log lines, as a shipper would; nothing is kept.
  child.stderr.on('data', (d) => (logLines += d.toString().split('\n').length - 1));
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error('hub exited early');
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      /* not yet */
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { child, url, stdout: () => stdout, logLines: () => logLines };
}

async function stop(child) {
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
}

function load(url, token) {
  return new Promise((ok, fail) =>
    autocannon(
      {
        url: `${url}/auth/session`,
        duration: Number(args.duration),
        connections: Number(args.connections),
        headers: { authorization: `Bearer ${token}` },
      },
      (e, r) => (e ? fail(e) : ok(r)),
    ),
  );
}

const dir = await mkdtemp(join(tmpdir(), 'hub-obs-'));
try {
  const on =
    'logging:\n  level: info\n  format: json\n  accessLog: true\nmetrics:\n  enabled: true\n';
  const off =
    'logging:\n  level: info\n  format: json\n  accessLog: false\nmetrics:\n  enabled: false\n';
  // The first start creates the admin account and prints its token.
  let hub = await start(dir, 'first', off);
  const token = hub.stdout().match(/hbk_[A-Za-z0-9_-]{43}/)?.[0];
  await stop(hub.child);
  if (!token) throw new Error('no admin token printed');
  const results = { on: [], off: [] };
  for (let round = 0; round < Number(args.rounds); round++) {
    for (const [name, extra] of [
      ['on', on],
      ['off', off],
    ]) {
      hub = await start(dir, name, extra);
      await load(hub.url, token); // warm-up
      const r = await load(hub.url, token);
      results[name].push({
        rps: Math.round(r.requests.average),
        p50: r.latency.p50,
        p99: r.latency.p99,
        non2xx: r.non2xx,
        logLines: hub.logLines(),
      });
      await stop(hub.child);
    }
  }
  const mean = (rows, key) => rows.reduce((s, r) => s + r[key], 0) / rows.length;
  const rpsOn = mean(results.on, 'rps');
  const rpsOff = mean(results.off, 'rps');
  console.log(JSON.stringify(results));
  console.log(`| GET /auth/session (embedded) | req/s | µs per request |\n|---|---|---|`);
  console.log(`| access log + metrics on | ${Math.round(rpsOn)} | ${(1e6 / rpsOn).toFixed(0)} |`);
  console.log(
    `| access log + metrics off | ${Math.round(rpsOff)} | ${(1e6 / rpsOff).toFixed(0)} |`,
  );
  console.log(
    `| cost per request | | ${(1e6 / rpsOn - 1e6 / rpsOff).toFixed(1)} µs (${(((rpsOff - rpsOn) / rpsOff) * 100).toFixed(1)} % of throughput) |`,
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
