#!/usr/bin/env node
/**
 * The console's render bench: how long the hub takes to render each web console page, server
 * side, on a hub that holds 1 000 users, 10 000 audit events and a saved request with 100
 * revisions. Everything is seeded through the API (the users, a collection with folders,
 * documents, the request edited in turn by an administrator and a member, deleted requests in the
 * trash, notices from a discussion, and `revision.read` events until the log holds the target),
 * then an administrator and a member sign in to the console and every page of
 * plugins/console/pages/index.ts each may open is requested in process (`app.request`, the
 * session cookie, no socket) one at a time, warm-up first. Prints each page's p50 and p99 in
 * milliseconds and the size of its HTML; the goal is p99 ≤ 50 ms.
 *
 *   node --import tsx bench/console.mjs                    embedded SQLite (a temporary file)
 *   node --import tsx bench/console.mjs --driver postgres  a new database on HUB_BENCH_PG_URL or
 *                                                          HUB_TEST_PG_URL, dropped after
 *   --runs <n> (200)  timed renders per page, after --warmup <n> (20) untimed ones
 *   --users <n> (1000)  --events <n> (10000)  --revisions <n> (100)   the seeded sizes
 *   --pages a,b       only the pages whose label (first column) contains one of these
 *   --json            the figures as JSON instead of a table
 *   --profile <file>  a CPU profile of the timed renders only (not the seeding), for Chrome's
 *                     DevTools or `node bench/profile-summary.mjs <file>`
 *
 * Seeding is not timed. The machine is shared: compare two trees in one sitting, never across days.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { validateConfig } from '../kernel/config/load.ts';
import { createHub } from '../kernel/hub.ts';
import { silentLogger } from '../kernel/log.ts';
import { createDriver } from '../kernel/storage/create-driver.ts';
import { createMemoryThrottleStore } from '../kernel/throttle/memory.ts';
import { auditEventsTable } from '../plugins/audit/tables.ts';
import { pages } from '../plugins/console/pages/index.ts';
import { revisionsTable } from '../plugins/entities/history/tables.ts';
import { plugins } from '../plugins/index.ts';
import { printUsageAndExit } from './support.mjs';

const { values: args } = parseArgs({
  options: {
    driver: { type: 'string', default: 'sqlite' },
    runs: { type: 'string', default: '200' },
    warmup: { type: 'string', default: '20' },
    users: { type: 'string', default: '1000' },
    events: { type: 'string', default: '10000' },
    revisions: { type: 'string', default: '100' },
    pages: { type: 'string', default: '' },
    json: { type: 'boolean', default: false },
    profile: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (args.help) printUsageAndExit(import.meta.url);
const note = (message) => process.stderr.write(`[console-bench] ${message}\n`);
const count = (name) => {
  const value = Number(args[name]);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name}: expected a whole number`);
  return value;
};
const [runs, warmup, userCount, eventCount, revisionCount] = [
  'runs',
  'warmup',
  'users',
  'events',
  'revisions',
].map(count);

/** A database for this run and how to drop it. */
async function database() {
  if (args.driver === 'sqlite') {
    const dir = await mkdtemp(join(tmpdir(), 'hub-console-bench-'));
    return {
      config: { driver: 'sqlite', path: join(dir, 'hub.db') },
      drop: () => rm(dir, { recursive: true, force: true }),
    };
  }
  if (args.driver !== 'postgres') throw new Error(`--driver: expected sqlite or postgres`);
  const url = process.env.HUB_BENCH_PG_URL ?? process.env.HUB_TEST_PG_URL;
  if (!url) throw new Error('--driver postgres needs HUB_BENCH_PG_URL or HUB_TEST_PG_URL');
  const name = `hub_console_bench_${process.pid}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(url);
  return {
    config: {
      driver: 'postgres',
      host: u.hostname,
      port: Number(u.port || 5432),
      user: decodeURIComponent(u.username),
      password: decodeURIComponent(u.password),
      database: name,
    },
    async drop() {
      const again = new pg.Client({ connectionString: url });
      await again.connect();
      await again.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await again.end();
    },
  };
}

const db = await database();
const sections = Object.fromEntries(
  plugins.filter((p) => p.config).map((p) => [p.config.section, p.config.schema]),
);
const driver = await createDriver(db.config);
const hub = await createHub({
  // Multitenancy on, so the tenants page is timed too.
  config: validateConfig(
    { logging: { level: 'silent' }, multitenancy: { enabled: true } },
    sections,
    {},
  ),
  plugins,
  driver,
  throttle: createMemoryThrottleStore(),
  log: silentLogger,
  migrate: true,
});
const store = driver.forTenant('__default__');
const first = await hub.identity.users.create(store, { name: 'bench-admin', role: 'admin' });
const adminToken = (await hub.identity.tokens.issue(store, first, 'bench')).secret;

/** A request to the API as `token`; the JSON answer, or an error naming the route. */
async function api(method, path, body, token = adminToken) {
  const res = await hub.app.request(path, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/** Runs `work(i)` for i < n, `width` at a time. */
async function inParallel(n, width, work) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) await work(next++);
    }),
  );
}

note(`seeding on ${args.driver}: ${userCount} users`);
const collection = await api('POST', '/collections', { name: 'Bench collection' });
const member = await api('POST', '/admin/users', {
  name: 'bench-member',
  collectionAccess: [collection.id],
});
await inParallel(userCount - 2, 8, (i) =>
  api('POST', '/admin/users', { name: `bench-user-${i}`, collectionAccess: ['*'] }),
);

note(`a collection with folders and documents, a request with ${revisionCount} revisions`);
const folders = [];
for (let i = 0; i < 5; i++) {
  const parentFolderId = i > 0 && i % 2 === 0 ? folders[i - 1].id : null;
  folders.push(
    await api('POST', `/collections/${collection.id}/folders`, {
      name: `Folder ${i}`,
      ...(parentFolderId ? { parentFolderId } : {}),
    }),
  );
}
for (let i = 0; i < 20; i++) {
  await api('POST', `/collections/${collection.id}/documents`, {
    name: `Document ${i}`,
    folderId: folders[i % folders.length].id,
    content: `# Notes ${i}\n\n${'Some text. '.repeat(40)}`,
  });
  await api('POST', `/collections/${collection.id}/requests`, {
    name: `Request ${i}`,
    folderId: i % 3 === 0 ? null : folders[i % folders.length].id,
    method: 'POST',
    url: `https://api.example.test/items/${i}`,
  });
}
const request = await api('POST', `/collections/${collection.id}/requests`, {
  name: 'Edited request',
  method: 'PUT',
  url: 'https://api.example.test/orders/1',
  body: JSON.stringify({ order: 1, lines: [] }, null, 2),
});
for (let version = 2; version <= revisionCount; version++) {
  const token = version % 2 === 0 ? member.secret : adminToken;
  await api(
    'PUT',
    `/requests/${request.id}`,
    {
      collectionId: collection.id,
      url: `https://api.example.test/orders/${version}`,
      body: JSON.stringify({ order: version, lines: Array.from({ length: version % 7 }) }, null, 2),
      headers: [{ key: 'X-Version', value: String(version), enabled: true }],
    },
    token,
  );
}
for (let i = 0; i < 30; i++) {
  const gone = await api(
    'POST',
    `/collections/${collection.id}/requests`,
    { name: `Gone ${i}` },
    member.secret,
  );
  await api('DELETE', `/requests/${gone.id}`, undefined, member.secret);
}

note('notices for the member: a discussion on the request');
const thread = await api(
  'POST',
  `/requests/${request.id}/discussions`,
  { body: 'Which order number is right?' },
  member.secret,
);
for (let i = 0; i < 30; i++)
  await api('POST', `/discussion-comments/${thread.id}/replies`, { body: `Reply ${i}` });

const events = async () =>
  (await store.table(auditEventsTable).count()) + (await store.table(revisionsTable).count());
const [newest] = (await api('GET', `/requests/${request.id}/revisions?limit=1`)).revisions;
const missing = eventCount - (await events());
note(`${missing > 0 ? missing : 0} revision reads to reach ${eventCount} audit events`);
await inParallel(Math.max(0, missing), 8, () =>
  api('GET', `/requests/${request.id}/revisions/${newest.id}`),
);
note(`the log holds ${await events()} events`);

/** Signs in to the console with `token`; the cookie header. */
async function signIn(token) {
  const res = await hub.app.request('/console/sign-in', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://localhost' },
    body: new URLSearchParams({ token }).toString(),
  });
  const cookie = res.headers.getSetCookie()[0]?.split(';')[0];
  if (res.status !== 303 || !cookie) throw new Error(`sign-in: ${res.status}`);
  return cookie;
}
const cookies = { admin: await signIn(adminToken), member: await signIn(member.secret) };

/** The ids a page's path parameters take in this bench; a page with others is left out. */
const PARAMETERS = {
  '/collections/:id': `/collections/${collection.id}`,
  '/history/:prefix/:id': `/history/requests/${request.id}`,
  '/users/:id': `/users/${member.user.id}`,
};
/** Pages worth timing in more than their plain form. */
const VARIANTS = {
  '/history/:prefix/:id': ['', '?view=unified'],
};

const targets = [];
for (const page of pages) {
  let path = page.path;
  for (const [pattern, value] of Object.entries(PARAMETERS)) path = path.replace(pattern, value);
  if (path.includes(':')) {
    note(`left out ${page.path}: no value for its parameters`);
    continue;
  }
  // A download (the audit log's JSON lines) is a file, not a page to render.
  if (page.file) {
    note(`left out ${page.path}: a download, not a page`);
    continue;
  }
  for (const variant of VARIANTS[page.path] ?? ['']) {
    for (const role of page.admin ? ['admin'] : ['admin', 'member']) {
      const label = `${page.path || '/'}${variant} (${role})`;
      if (args.pages && !args.pages.split(',').some((part) => label.includes(part))) continue;
      targets.push({ label, url: `/console${path}${variant}`, cookie: cookies[role] });
    }
  }
}

const profiler = args.profile ? new Session() : null;
if (profiler) {
  profiler.connect();
  await profiler.post('Profiler.enable');
  await profiler.post('Profiler.setSamplingInterval', { interval: 100 });
  await profiler.post('Profiler.start');
}

const quantile = (sorted, q) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
const results = [];
for (const target of targets) {
  const render = async () => {
    const started = performance.now();
    const res = await hub.app.request(target.url, { headers: { cookie: target.cookie } });
    const html = await res.text();
    const ms = performance.now() - started;
    if (res.status !== 200) throw new Error(`${target.url}: ${res.status} ${html.slice(0, 500)}`);
    return { ms, bytes: Buffer.byteLength(html) };
  };
  for (let i = 0; i < warmup; i++) await render();
  const times = [];
  let bytes = 0;
  for (let i = 0; i < runs; i++) {
    const { ms, bytes: size } = await render();
    times.push(ms);
    bytes = size;
  }
  times.sort((a, b) => a - b);
  results.push({
    page: target.label,
    p50: quantile(times, 0.5),
    p99: quantile(times, 0.99),
    bytes,
  });
}

if (profiler) {
  const { profile } = await profiler.post('Profiler.stop');
  await writeFile(args.profile, JSON.stringify(profile));
  note(`CPU profile of the renders: ${args.profile}`);
}

await hub.close();
await db.drop();

if (args.json) process.stdout.write(`${JSON.stringify({ driver: args.driver, results })}\n`);
else {
  console.log(`console pages on ${args.driver}, ${runs} renders each (ms)\n`);
  console.log('| page | p50 | p99 | HTML bytes |\n|---|---:|---:|---:|');
  for (const r of results)
    console.log(`| ${r.page} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.bytes} |`);
}
