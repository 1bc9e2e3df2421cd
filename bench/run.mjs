#!/usr/bin/env node
/**
 * `npm run bench`: start-up time, idle memory and authenticated throughput of a real hub process.
 *
 *   node bench/run.mjs                 embedded SQLite in a fresh temp directory
 *   node bench/run.mjs --postgres      PostgreSQL (HUB_BENCH_PG_URL or HUB_TEST_PG_URL) + Redis
 *                                      (HUB_BENCH_REDIS_URL or HUB_TEST_REDIS_URL)
 *   --duration <s> (default 10)  --connections <n> (default 32)  --json
 *
 * It measures what a person running the hub sees: time from process start to the first answer on a
 * fresh and on an existing database, resident memory once idle and at its peak, and `GET /health`,
 * `GET /auth/session`, `GET /collections` and creating a saved request (`POST
 * /collections/:id/requests`) under load with autocannon. The load generator shares the machine's
 * cores.
 */
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';

const root = resolve(import.meta.dirname, '..');
const { values: args } = parseArgs({
  options: {
    postgres: { type: 'boolean', default: false },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    json: { type: 'boolean', default: false },
  },
});
const note = (message) => process.stderr.write(`[bench] ${message}\n`);

async function freePort() {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  await new Promise((r) => server.close(r));
  return port;
}

/** Starts the hub; resolves once /health answers, with the admin secret if one was printed. */
async function startHub(configPath, cwd) {
  const started = performance.now();
  const child = spawn(process.execPath, [join(root, 'cli/bin.mjs'), 'start', '--migrate', '--config', configPath], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const config = await readFile(configPath, 'utf8');
  const port = Number(config.match(/port: (\d+)/)[1]);
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`hub exited early:\n${stderr}`);
    try {
      const res = await fetch(`${url}/health`);
      if (res.ok) break;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  const firstResponseMs = performance.now() - started;
  const secret = stdout.match(/hbk_[A-Za-z0-9_-]{43}/)?.[0] ?? null;
  return { child, url, firstResponseMs, secret };
}

async function stopHub(child) {
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
}

async function rssMiB(pid) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(status.match(/VmRSS:\s+(\d+)/)[1]) / 1024;
}

async function peakRssMiB(pid) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(status.match(/VmHWM:\s+(\d+)/)[1]) / 1024;
}

function load(url, path, token, body) {
  const headers = token ? { authorization: `Bearer ${token}` } : {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  return new Promise((resolvePromise, reject) => {
    autocannon(
      { url: url + path, duration: Number(args.duration), connections: Number(args.connections), headers, ...(body === undefined ? {} : { method: 'POST', body: JSON.stringify(body) }) },
      (error, result) => (error ? reject(error) : resolvePromise(result)),
    );
  });
}

function summarize(result) {
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

async function main() {
  const dir = await mkdtemp(join(tmpdir(), 'hub-bench-'));
  const port = await freePort();
  const configPath = join(dir, 'server.yaml');
  let dropDb = async () => {};
  if (args.postgres) {
    const pgUrl = process.env.HUB_BENCH_PG_URL ?? process.env.HUB_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
    const redisUrl = new URL(process.env.HUB_BENCH_REDIS_URL ?? process.env.HUB_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
    const name = `hub_bench_${Date.now()}`;
    const admin = new pg.Client({ connectionString: pgUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const u = new URL(pgUrl);
    await writeFile(configPath, `server:\n  port: ${port}\ndb:\n  driver: postgres\n  host: ${u.hostname}\n  port: ${u.port || 5432}\n  user: ${decodeURIComponent(u.username) || 'postgres'}\n  password: "${decodeURIComponent(u.password)}"\n  database: ${name}\n  max: 20\nredis:\n  host: ${redisUrl.hostname}\n  port: ${redisUrl.port || 6379}\n  keyPrefix: "hub-bench-${Date.now()}:"\nlogging:\n  level: warn\n`);
    dropDb = async () => {
      const c = new pg.Client({ connectionString: pgUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    };
  } else {
    await writeFile(configPath, `server:\n  port: ${port}\ndb:\n  driver: sqlite\n  path: ${join(dir, 'data', 'hub.db')}\nlogging:\n  level: warn\n`);
  }
  const results = { database: args.postgres ? 'postgres+redis' : 'sqlite', node: process.version, duration: Number(args.duration), connections: Number(args.connections) };
  try {
    note('starting on a fresh database');
    let hub = await startHub(configPath, dir);
    results.firstResponseFreshMs = Math.round(hub.firstResponseMs);
    const secret = hub.secret;
    if (!secret) throw new Error('the first start did not print an admin token');
    await stopHub(hub.child);

    note('starting on the existing database');
    hub = await startHub(configPath, dir);
    results.firstResponseExistingMs = Math.round(hub.firstResponseMs);
    await new Promise((r) => setTimeout(r, 3000));
    results.idleRssMiB = Math.round(await rssMiB(hub.child.pid));

    note(`GET /health for ${args.duration}s`);
    results.health = summarize(await load(hub.url, '/health'));
    note(`GET /auth/session for ${args.duration}s`);
    results.session = summarize(await load(hub.url, '/auth/session', secret));
    const collection = await fetch(`${hub.url}/collections`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench' }),
    }).then((res) => res.json());
    note(`GET /collections for ${args.duration}s`);
    results.collections = summarize(await load(hub.url, '/collections', secret));
    note(`POST /collections/:id/requests for ${args.duration}s`);
    results.createRequest = summarize(await load(hub.url, `/collections/${collection.id}/requests`, secret, { name: 'bench request', method: 'GET', url: 'https://example.com/' }));
    results.rssAfterLoadMiB = Math.round(await rssMiB(hub.child.pid));
    results.peakRssMiB = Math.round(await peakRssMiB(hub.child.pid));
    await stopHub(hub.child);
  } finally {
    await dropDb();
    await rm(dir, { recursive: true, force: true });
  }
  if (args.json) {
    console.log(JSON.stringify(results));
    return;
  }
  console.log(`| ${results.database} | value |\n|---|---|`);
  console.log(`| first response, fresh database | ${results.firstResponseFreshMs} ms |`);
  console.log(`| first response, existing database | ${results.firstResponseExistingMs} ms |`);
  console.log(`| idle RSS | ${results.idleRssMiB} MiB |`);
  const labels = { health: 'GET /health', session: 'GET /auth/session', collections: 'GET /collections', createRequest: 'POST /collections/:id/requests' };
  for (const [key, label] of Object.entries(labels)) {
    const r = results[key];
    console.log(`| ${label} | ${r.requestsPerSecond} req/s, p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms, non-2xx ${r.non2xx} |`);
  }
  console.log(`| RSS after load | ${results.rssAfterLoadMiB} MiB |`);
  console.log(`| peak RSS | ${results.peakRssMiB} MiB |`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
