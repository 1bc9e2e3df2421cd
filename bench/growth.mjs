#!/usr/bin/env node
/**
 * The growth bench: does a request cost more as the hub holds more? For each stage it seeds a new
 * database at that multiple of a base size (collections, requests, users, comments, notices; see
 * bench/growth-seed.mjs), starts a real hub process on it, and times requests one at a time over
 * HTTP: the session, a scoped user's collections among all of them, a small collection's request
 * list, the admin user list, a notice feed page and the unread count of a reader with notices
 * about a collection they can no longer open, creating into a folder of 20 and into one that
 * grows with the stage, and a discussion page. It prints each route's median and p99 per stage as a
 * Markdown table, and the ratio of the last stage's median to the first's.
 *
 *   node --import tsx bench/growth.mjs                     sqlite, then postgres when configured
 *   node --import tsx bench/growth.mjs --driver postgres   one database (sqlite or postgres)
 *   --stages 1,10,100   multiples of the base size (1: 50 collections, 300 spread requests, a big
 *                       folder of 200, 20 users, 200 comments, 20 hidden and 200 other notices)
 *   --scale <x> (1)     multiplies every stage, e.g. 0.1 for a quick run
 *   --requests <n> (200) timed requests per route and stage, after --warmup <n> (20) untimed ones
 *   --routes a,b        only these routes (names as in the table)
 *   --hub <dir>         another checkout of the hub (a baseline), seeded with its own modules
 *   --json              the figures as JSON instead of tables
 *
 * PostgreSQL comes from HUB_BENCH_PG_URL or HUB_TEST_PG_URL (a new database per stage, dropped
 * after), Redis from HUB_BENCH_REDIS_URL or HUB_TEST_REDIS_URL when set. Seeding time is not
 * measured. The machine is shared: compare two checkouts in one sitting, never across days.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { seed } from './growth-seed.mjs';
import { freePort, printUsageAndExit } from './support.mjs';

const root = resolve(import.meta.dirname, '..');
const { values: args } = parseArgs({
  options: {
    driver: { type: 'string' },
    stages: { type: 'string', default: '1,10,100' },
    scale: { type: 'string', default: '1' },
    requests: { type: 'string', default: '200' },
    warmup: { type: 'string', default: '20' },
    routes: { type: 'string', default: '' },
    hub: { type: 'string', default: root },
    json: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (args.help) printUsageAndExit(import.meta.url);
const note = (message) => process.stderr.write(`[growth] ${message}\n`);
const pgUrl = process.env.HUB_BENCH_PG_URL ?? process.env.HUB_TEST_PG_URL;
const redisUrl = process.env.HUB_BENCH_REDIS_URL ?? process.env.HUB_TEST_REDIS_URL;
const drivers = args.driver ? [args.driver] : pgUrl ? ['sqlite', 'postgres'] : ['sqlite'];
for (const driver of drivers)
  if (!['sqlite', 'postgres'].includes(driver))
    throw new Error(`--driver: expected sqlite or postgres, got ${driver}`);
const stages = args.stages.split(',').map(Number);
if (stages.some((s) => !(s > 0))) throw new Error(`--stages: expected numbers, got ${args.stages}`);
const hubDir = resolve(args.hub);

/** The measured routes: a name, and the request for the n-th call. */
const ROUTES = [
  ['session', (s) => ['GET', '/auth/session', s.scopedToken]],
  ['scoped collections', (s) => ['GET', '/collections', s.scopedToken]],
  ['small collection requests', (s) => ['GET', `/collections/${s.small}/requests`, s.scopedToken]],
  ['admin users', (s) => ['GET', '/admin/users', s.adminToken]],
  ['notices feed (hidden)', (s) => ['GET', '/notices?limit=20', s.readerToken]],
  ['unread count (hidden)', (s) => ['GET', '/notices/unread-count', s.readerToken]],
  ['create into small folder', (s, n) => create(s, s.smallFolder, n)],
  ['create into big folder', (s, n) => create(s, s.bigFolder, n)],
  ['discussion page', (s) => ['GET', `/requests/${s.discussed}/discussions`, s.readerToken]],
].filter(([name]) => !args.routes || args.routes.split(',').includes(name));

function create(s, folderId, n) {
  return [
    'POST',
    `/collections/${s.folders}/requests`,
    s.adminToken,
    { name: `New ${n}`, folderId },
  ];
}

/** A `db` section and its config text for a new database; `drop` removes it. */
async function database(driver, dir) {
  if (driver === 'sqlite') {
    const db = { driver: 'sqlite', path: join(dir, 'hub.db') };
    return { db, yaml: `db:\n  driver: sqlite\n  path: ${db.path}\n`, drop: async () => {} };
  }
  if (!pgUrl) throw new Error('--driver postgres needs HUB_BENCH_PG_URL or HUB_TEST_PG_URL');
  const name = `hub_growth_${Date.now()}_${process.pid}`;
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(pgUrl);
  const db = {
    driver: 'postgres',
    host: u.hostname,
    port: Number(u.port || 5432),
    user: decodeURIComponent(u.username) || 'postgres',
    password: decodeURIComponent(u.password),
    database: name,
  };
  let yaml = `db:\n${Object.entries(db)
    .map(([k, v]) => `  ${k}: ${JSON.stringify(v)}\n`)
    .join('')}`;
  if (redisUrl) {
    const r = new URL(redisUrl);
    yaml += `redis:\n  host: ${r.hostname}\n  port: ${r.port || 6379}\n  keyPrefix: "${name}:"\n`;
  }
  const drop = async () => {
    const c = new pg.Client({ connectionString: pgUrl });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.end();
  };
  return { db, yaml, drop };
}

async function startHub(configPath, cwd, port) {
  const bin = join(hubDir, 'cli/bin.mjs');
  const child = spawn(process.execPath, [bin, 'start', '--migrate', '--config', configPath], {
    cwd,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`hub exited early:\n${stderr}`);
    try {
      if ((await fetch(`${url}/health`)).ok) return { child, url };
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function stopHub(child) {
  child.kill('SIGTERM');
  await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
}

const percentile = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

/** Times one route: warm-up calls, then timed ones, one at a time. */
async function timeRoute(url, fixtures, request) {
  const times = [];
  const total = Number(args.warmup) + Number(args.requests);
  for (let n = 0; n < total; n++) {
    const [method, path, token, body] = request(fixtures, n);
    const started = performance.now();
    const res = await fetch(url + path, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
    });
    await res.arrayBuffer();
    const ms = performance.now() - started;
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status}`);
    if (n >= Number(args.warmup)) times.push(ms);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 0.5), p99: percentile(times, 0.99) };
}

async function runStage(driver, multiple) {
  const dir = await mkdtemp(join(tmpdir(), 'hub-growth-'));
  const port = await freePort();
  const { db, yaml, drop } = await database(driver, dir);
  try {
    const started = performance.now();
    const fixtures = await seed(hubDir, db, multiple);
    note(`${driver} ×${multiple}: seeded in ${Math.round(performance.now() - started)} ms`);
    const configPath = join(dir, 'server.yaml');
    await writeFile(configPath, `server:\n  port: ${port}\nlogging:\n  level: warn\n${yaml}`);
    const hub = await startHub(configPath, dir, port);
    try {
      const result = {};
      for (const [name, request] of ROUTES)
        result[name] = await timeRoute(hub.url, fixtures, request);
      return result;
    } finally {
      await stopHub(hub.child);
    }
  } finally {
    await drop();
    await rm(dir, { recursive: true, force: true });
  }
}

const fmt = (ms) => (ms < 10 ? ms.toFixed(2) : ms.toFixed(1));

function printTable(driver, results) {
  const multiples = stages.map((s) => s * Number(args.scale));
  console.log(`\n### ${driver} (${hubDir})\n`);
  const head = multiples.map((m) => `${m}× p50 | ${m}× p99`).join(' | ');
  console.log(`| route | ${head} | last/first p50 |`);
  console.log(`|---|${multiples.map(() => '---:|---:').join('|')}|---:|`);
  for (const [name] of ROUTES) {
    const cells = results.map((r) => `${fmt(r[name].p50)} | ${fmt(r[name].p99)}`).join(' | ');
    const ratio = results[results.length - 1][name].p50 / results[0][name].p50;
    console.log(`| ${name} | ${cells} | ${ratio.toFixed(2)} |`);
  }
}

const all = {};
for (const driver of drivers) {
  all[driver] = [];
  for (const stage of stages) all[driver].push(await runStage(driver, stage * Number(args.scale)));
}
if (args.json) console.log(JSON.stringify({ hub: hubDir, stages, scale: args.scale, all }));
else for (const driver of drivers) printTable(driver, all[driver]);
