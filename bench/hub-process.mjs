/**
 * A hub as a child process for the bench scripts (`run.mjs`, `floor.mjs`): the shared bench's
 * pinned install, starting a checkout's CLI on Node or Deno and waiting for `/health`, stopping
 * it, and reading its memory from /proc.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');

/** The options every script that runs the shared bench's load generator takes (`parseArgs`). */
export const commonOptions = {
  'bench-dir': {
    type: 'string',
    default: process.env.HUB_SHARED_BENCH ?? resolve(root, '../shared/bench'),
  },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
};

/**
 * The shared bench with its pinned dependencies, installed once under node_modules/.cache;
 * resolves with the directory it is in.
 */
export async function sharedBenchDir(source, note) {
  source = resolve(source);
  if (!existsSync(join(source, 'bench.mjs'))) {
    throw new Error(`the shared bench is not at ${source} (give --bench-dir or HUB_SHARED_BENCH)`);
  }
  const dir = join(root, 'node_modules/.cache/shared-bench');
  await mkdir(dir, { recursive: true });
  const lock = readFileSync(join(source, 'package-lock.json'), 'utf8');
  const installed = existsSync(join(dir, 'package-lock.json'))
    ? readFileSync(join(dir, 'package-lock.json'), 'utf8')
    : '';
  for (const file of ['bench.mjs', 'summarize.mjs', 'package.json', 'package-lock.json'])
    await copyFile(join(source, file), join(dir, file));
  if (lock !== installed || !existsSync(join(dir, 'node_modules'))) {
    note('installing the shared bench (npm ci)');
    const done = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--silent'], {
      cwd: dir,
      stdio: 'inherit',
    });
    if (done.status !== 0) throw new Error('npm ci of the shared bench failed');
  }
  return dir;
}

/**
 * Starts the hub of checkout `hub` (`cli/bin.mjs` on this Node, or `cli/deno.ts` under the checkout's
 * Deno with `deno: true`); resolves once /health answers, with the admin secret if one was printed.
 */
export async function startHub({ hub, configPath, cwd, port, env = {}, nodeArgs = [], deno }) {
  const started = performance.now();
  const denoBin = join(resolve(hub), 'node_modules/deno/deno');
  const [command, argv] = deno
    ? [denoBin, ['run', '--allow-all', join(resolve(hub), 'cli/deno.ts')]]
    : [process.execPath, [...nodeArgs, join(resolve(hub), 'cli/bin.mjs')]];
  const child = spawn(command, [...argv, 'start', '--migrate', '--config', configPath], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      ...env,
      ...(deno ? { PATH: `${dirname(denoBin)}:${process.env.PATH ?? ''}`, NO_COLOR: '1' } : {}),
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`hub exited early:\n${stderr}`);
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  const firstResponseMs = performance.now() - started;
  const secret = stdout.match(/hbk_[A-Za-z0-9_-]{43}/)?.[0] ?? null;
  return { child, url, firstResponseMs, secret };
}

export async function stopHub(child) {
  if (child.exitCode !== null) return;
  process.kill(child.pid, 'SIGTERM');
  await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
}

/** A field of /proc/<pid>/status (`VmRSS`, `VmHWM`) in MiB. */
export async function statusMiB(pid, field) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(status.match(new RegExp(`${field}:\\s+(\\d+)`))[1]) / 1024);
}
