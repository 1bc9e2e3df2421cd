#!/usr/bin/env node
/**
 * The per-request CPU cost of the access log and metrics without sockets or a load generator
 * (which share the cores on a busy machine): two hubs on one embedded database, one with the
 * access log (JSON lines to /dev/null, written synchronously) and metrics on, one with both off,
 * called through `app.request` in alternating batches. Reports the median time per request.
 *
 *   node --import tsx bench/observability-inprocess.mjs [--batch 10000] [--rounds 9]
 */
import { openSync, writeSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { validateConfig } from '../kernel/config/load.ts';
import { createHub } from '../kernel/hub.ts';
import { createLogger } from '../kernel/log.ts';
import { createDriver } from '../kernel/storage/create-driver.ts';
import { createMemoryThrottleStore } from '../kernel/throttle/memory.ts';
import { plugins } from '../plugins/index.ts';

const { values: args } = parseArgs({
  options: {
    batch: { type: 'string', default: '10000' },
    rounds: { type: 'string', default: '9' },
  },
});
const sections = Object.fromEntries(
  plugins.filter((p) => p.config).map((p) => [p.config.section, p.config.schema]),
);
const driver = await createDriver({ driver: 'sqlite', path: ':memory:' });
const fd = openSync('/dev/null', 'w');
const open = (accessLog, metrics) =>
  createHub({
    config: validateConfig(
      { logging: { level: 'info', format: 'json', accessLog }, metrics: { enabled: metrics } },
      sections,
      {},
    ),
    plugins,
    driver,
    throttle: createMemoryThrottleStore(),
    log: createLogger({
      level: 'info',
      format: 'json',
      write: (line) => writeSync(fd, line + '\n'),
    }),
    migrate: true,
  });
const hubs = {
  on: await open(true, true),
  log: await open(true, false),
  metrics: await open(false, true),
  off: await open(false, false),
};
const store = driver.forTenant('__default__');
const user = await hubs.on.identity.users.create(store, { name: 'bench', role: 'admin' });
const { secret } = await hubs.on.identity.tokens.issue(store, user, 'bench');

let batch = Number(args.batch);
async function run(hub, path, headers) {
  const started = process.hrtime.bigint();
  for (let i = 0; i < batch; i++) {
    const res = await hub.app.request(path, { headers });
    await res.arrayBuffer();
  }
  return Number(process.hrtime.bigint() - started) / batch / 1000;
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(
  '| route | both on | access log only | metrics only | both off | cost of both |\n|---|---|---|---|---|---|',
);
// /auth/session reads the database and costs about ten times more; a smaller batch keeps the run short.
for (const [path, headers, share] of [
  ['/healthz', {}, 1],
  ['/auth/session', { authorization: `Bearer ${secret}` }, 0.1],
]) {
  batch = Math.max(100, Math.round(Number(args.batch) * share));
  const names = ['on', 'log', 'metrics', 'off'];
  for (const name of names) await run(hubs[name], path, headers); // warm-up
  const times = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < Number(args.rounds); round++) {
    for (const name of round % 2 ? [...names].reverse() : names)
      times[name].push(await run(hubs[name], path, headers));
  }
  const [on, log, metrics, off] = names.map((name) => median(times[name]));
  console.log(
    `| GET ${path} | ${on.toFixed(1)} µs | ${log.toFixed(1)} µs | ${metrics.toFixed(1)} µs | ${off.toFixed(1)} µs | ${(on - off).toFixed(1)} µs (${(((on - off) / off) * 100).toFixed(1)} %) |`,
  );
}
for (const hub of Object.values(hubs)) await hub.close();
await driver.close();
