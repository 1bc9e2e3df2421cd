#!/usr/bin/env node
/**
 * Micro-benchmark: the cost of one access-log line with the hub's logger (kernel/log.ts) and, when
 * it can be imported, `pino` — the measurement behind keeping the hand-written logger.
 *
 *   node --import tsx bench/logger.mjs [lines]       (pino is looked up with NODE_PATH if set)
 *
 * Every line carries the fields of an access-log entry and goes to /dev/null with a synchronous
 * write, as the hub's logger writes to stderr; pino is also measured with its buffered async
 * destination, its fastest mode.
 */
import { openSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createLogger } from '../kernel/log.ts';

const N = Number(process.argv[2] ?? 200_000);
const fields = {
  method: 'GET',
  route: '/collections/:id',
  status: 200,
  durationMs: 1.234,
  bytes: 5120,
  requestId: 'b7c1a9e2-2f4d-4c55-9e0a-0f7c3d2a1b6e',
  tenant: '__default__',
  userId: '0d9f4f1c-8f6e-4b39-9a53-5cb1f6a2b7e1',
};

/** Best of three runs of N lines, after a warm-up, so JIT and GC noise on a busy machine matter less. */
function time(name, log) {
  for (let i = 0; i < 20_000; i++) log(); // warm-up
  let ns = Infinity;
  for (let run = 0; run < 3; run++) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < N; i++) log();
    ns = Math.min(ns, Number(process.hrtime.bigint() - started) / N);
  }
  console.log(
    `${name.padEnd(34)} ${(ns / 1000).toFixed(2)} µs/line  ${Math.round(1e9 / ns)} lines/s`,
  );
}

const fd = openSync('/dev/null', 'w');
const ours = createLogger({
  level: 'info',
  format: 'json',
  write: (line) => writeSync(fd, line + '\n'),
}).child({ plugin: 'kernel' });
time('kernel/log.ts json (sync)', () => ours.info('request', fields));
const pretty = createLogger({
  level: 'info',
  format: 'pretty',
  write: (line) => writeSync(fd, line + '\n'),
});
time('kernel/log.ts pretty (sync)', () => pretty.info('request', fields));
const off = createLogger({
  level: 'warn',
  format: 'json',
  write: (line) => writeSync(fd, line + '\n'),
});
time('kernel/log.ts below level (dropped)', () => off.info('request', fields));

let pino;
try {
  pino = createRequire(import.meta.url)(process.env.PINO_PATH ?? 'pino');
} catch {
  console.log('pino not installed; skipped');
}
if (pino) {
  const sync = pino({ base: undefined }, pino.destination({ dest: '/dev/null', sync: true })).child(
    { plugin: 'kernel' },
  );
  time('pino (sync destination)', () => sync.info(fields, 'request'));
  const asyncDest = pino.destination({ dest: '/dev/null', sync: false, minLength: 4096 });
  const buffered = pino({ base: undefined }, asyncDest).child({ plugin: 'kernel' });
  time('pino (buffered destination)', () => buffered.info(fields, 'request'));
  await new Promise((resolve) => asyncDest.once('ready', resolve)).catch(() => undefined);
  asyncDest.flushSync();
}
