#!/usr/bin/env node
/**
 * The floor of a request: the three cheapest scenarios of the shared bench (`health`, `bad-token`,
 * `session`) against this checkout and another one in the same run, plus a bare `node:http` server
 * answering `/health`'s 33 bytes (the physical floor of the machine), rounds rotated so no target
 * always runs first. Same load generator (autocannon, as the shared bench pins it) and settings as
 * the shared bench. Beside req/s and p99 it gives the server's CPU time per request (from /proc),
 * which the rest of a busy machine disturbs far less than throughput.
 *
 *   node bench/floor.mjs --hub ../base                this tree vs ../base, bare node:http too
 *   --driver sqlite|postgres|mysql|firestore (sqlite)  --rounds <n> (2)  --duration <s> (10)
 *   --warmup <s> (2)  --connections <n> (32)  --scenarios health,bad-token,session
 *   --deno     also this tree (and --hub's) under Deno     --no-bare   leave bare node:http out
 *   --json     one JSON document instead of the tables
 *   --node-args="--cpu-prof --cpu-prof-dir=/tmp/prof"  flags for each Node hub while it is measured
 *
 * Each hub gets its own fresh database (and Redis key prefix) per round; the user behind `session`
 * may read 50 collections, as in the shared bench. bad-token sends a new wrong token per run: a few
 * 401s, then the throttle's 429s.
 */
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { hubEnv, prepareDatabase } from './databases.mjs';
import { commonOptions, sharedBenchDir, startHub, statusMiB, stopHub } from './hub-process.mjs';
import { freePort, printUsageAndExit } from './support.mjs';

const root = resolve(import.meta.dirname, '..');
const { values: args } = parseArgs({
  options: {
    driver: { type: 'string', default: 'sqlite' },
    hub: { type: 'string' },
    rounds: { type: 'string', default: '2' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '32' },
    scenarios: { type: 'string', default: 'health,bad-token,session' },
    deno: { type: 'boolean', default: false },
    'no-bare': { type: 'boolean', default: false },
    'node-args': { type: 'string', default: '' },
    ...commonOptions,
  },
});
if (args.help) printUsageAndExit(import.meta.url);
const note = (message) => process.stderr.write(`[floor] ${message}\n`);
const autocannon = createRequire(
  join(await sharedBenchDir(args['bench-dir'], note), 'package.json'),
)('autocannon');
const wanted = args.scenarios.split(',').filter(Boolean);

/** The bare floor: node:http answering what /health answers, nothing else. */
const BARE = `
const body = JSON.stringify({ status: 'ok', version: process.argv[2] });
require('node:http').createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}).listen(Number(process.argv[1]), '127.0.0.1', () => console.log('listening'));
`;

function cannon(url, headers, seconds) {
  return new Promise((resolvePromise, reject) =>
    autocannon(
      { url, connections: Number(args.connections), duration: seconds, headers },
      (error, result) => (error ? reject(error) : resolvePromise(result)),
    ),
  );
}

/** CPU seconds (user + system) process `pid` has used so far. */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * Warm-up (not for bad-token, whose first failures are part of what it measures), then the run;
 * with the server's CPU time per request, which other load on the machine disturbs less than
 * its throughput.
 */
async function measure(name, url, headers, pid) {
  if (Number(args.warmup) > 0 && name !== 'bad-token')
    await cannon(url, headers, Number(args.warmup));
  const cpu = cpuSeconds(pid);
  const r = await cannon(url, headers, Number(args.duration));
  const cpuUs = Math.round(((cpuSeconds(pid) - cpu) * 1e6) / Math.max(1, r.requests.total));
  const status = {};
  for (const [code, v] of Object.entries(r.statusCodeStats ?? {})) status[code] = v.count;
  return {
    rps: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    cpuUs,
    status,
    errors: r.errors,
  };
}

async function api(url, method, path, token, body) {
  const response = await fetch(url + path, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!response.ok)
    throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** A user who may read 50 collections, as the shared bench seeds; resolves with its secret. */
async function seedUser(url, admin) {
  const ids = [];
  for (let i = 0; i < 50; i += 10) {
    const batch = Array.from({ length: 10 }, (_, j) =>
      api(url, 'POST', '/collections', admin, { name: `floor-${i + j}` }),
    );
    for (const created of await Promise.all(batch)) ids.push((created.collection ?? created).id);
  }
  const created = await api(url, 'POST', '/admin/users', admin, {
    name: `floor-${randomBytes(3).toString('hex')}`,
    role: 'user',
    collectionAccess: ids,
    environmentAccess: [],
    llmAccess: false,
    llmModels: [],
    llmMonthlyTokenLimit: null,
  });
  return created.secret ?? created.token.secret;
}

async function runHub(target) {
  const dir = await mkdtemp(join(tmpdir(), 'hub-floor-'));
  const port = await freePort();
  const configPath = join(dir, 'server.yaml');
  const database = await prepareDatabase(args.driver, dir, port);
  await writeFile(configPath, database.yaml);
  const options = { hub: target.hub, configPath, cwd: dir, port, env: hubEnv(args.driver) };
  try {
    let hub = await startHub(options);
    const admin = hub.secret;
    if (!admin) throw new Error(`${target.name}: the first start did not print an admin token`);
    const user = await seedUser(hub.url, admin);
    await stopHub(hub.child);
    const nodeArgs = args['node-args'].split(/\s+/).filter(Boolean);
    hub = await startHub({ ...options, nodeArgs, deno: target.deno });
    try {
      await new Promise((r) => setTimeout(r, 2000));
      const out = { idleRssMiB: await statusMiB(hub.child.pid, 'VmRSS') };
      const scenarios = {
        health: ['/health', {}],
        'bad-token': [
          '/collections',
          { authorization: `Bearer hbk_floor${randomBytes(12).toString('hex')}` },
        ],
        session: ['/auth/session', { authorization: `Bearer ${user}` }],
      };
      for (const name of wanted)
        out[name] = await measure(
          name,
          hub.url + scenarios[name][0],
          scenarios[name][1],
          hub.child.pid,
        );
      out.peakRssMiB = await statusMiB(hub.child.pid, 'VmHWM');
      return out;
    } finally {
      await stopHub(hub.child);
    }
  } finally {
    await database.drop();
    await rm(dir, { recursive: true, force: true });
  }
}

async function runBare() {
  const port = await freePort();
  const version = (await import(join(root, 'package.json'), { with: { type: 'json' } })).default
    .version;
  const child = spawn(process.execPath, ['-e', BARE, String(port), version], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise((r) => child.stdout.once('data', r));
  try {
    return {
      health: await measure('health', `http://127.0.0.1:${port}/health`, {}, child.pid),
    };
  } finally {
    await stopHub(child);
  }
}

const targets = [
  { name: 'this', hub: root },
  ...(args.hub ? [{ name: 'base', hub: resolve(args.hub) }] : []),
  ...(args.deno ? [{ name: 'this-deno', hub: root, deno: true }] : []),
  ...(args.deno && args.hub ? [{ name: 'base-deno', hub: resolve(args.hub), deno: true }] : []),
  ...(args['no-bare'] || !wanted.includes('health') ? [] : [{ name: 'bare', bare: true }]),
];
const results = Object.fromEntries(targets.map((t) => [t.name, []]));
for (let round = 0; round < Number(args.rounds); round++) {
  const order = targets.map((_, i) => targets[(i + round) % targets.length]);
  for (const target of order) {
    note(`round ${round + 1}: ${target.name}`);
    const result = target.bare ? await runBare() : await runHub(target);
    results[target.name].push(result);
    note(
      `${target.name}: ${wanted
        .filter((s) => result[s])
        .map((s) => `${s} ${result[s].rps}/s p99 ${result[s].p99} cpu ${result[s].cpuUs}µs`)
        .join(', ')}`,
    );
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
if (args.json) console.log(JSON.stringify({ driver: args.driver, targets, results }));
else {
  console.log(
    `\n### ${args.driver}, ${args.rounds} round(s), median req/s (p99 ms) [server CPU µs per request]\n`,
  );
  console.log(`| target | ${wanted.join(' | ')} | idle / peak RSS MiB |`);
  console.log(`|---|${wanted.map(() => '---:').join('|')}|---:|`);
  for (const target of targets) {
    const runs = results[target.name];
    const cells = wanted.map((s) =>
      runs[0][s]
        ? `${median(runs.map((r) => r[s].rps))} (${median(runs.map((r) => r[s].p99))}) [${median(runs.map((r) => r[s].cpuUs))}]`
        : '',
    );
    const rss = target.bare
      ? ''
      : `${median(runs.map((r) => r.idleRssMiB))} / ${median(runs.map((r) => r.peakRssMiB))}`;
    console.log(`| ${target.name} | ${cells.join(' | ')} | ${rss} |`);
  }
}
