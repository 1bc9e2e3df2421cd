/**
 * A PostgreSQL cluster of the suite's own, so a test can freeze a whole database server (SIGSTOP
 * to the postmaster and every backend) without touching the shared one: `initdb` as the `postgres`
 * OS user into a temporary directory, `pg_ctl start` on a free port, stopped and removed after the
 * block. Needs the server binaries (/usr/lib/postgresql/<version>/bin) and root, to act as
 * `postgres`; {@link privatePostgresAvailable} says whether the suite runs.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chown, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll } from 'vitest';
import type { StorageDriver } from '../../kernel/storage/contract.ts';
import { createDriver } from '../../kernel/storage/create-driver.ts';
import type { PostgresDbConfig } from '../../kernel/storage/config.ts';
import type { UsedTestDriver } from '../helpers/hub.ts';
import { freePort } from '../helpers/net.ts';
import { PG_URL_VAR, requireService } from '../helpers/services.ts';

const run = promisify(execFile);
const ROOT = '/usr/lib/postgresql';

/** The newest installed server's bin directory, or null. */
function serverBin(): string | null {
  if (!existsSync(ROOT)) return null;
  const versions = readdirSync(ROOT)
    .filter((v) => existsSync(join(ROOT, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(ROOT, versions[0], 'bin') : null;
}

/**
 * Whether the suite runs: with the PostgreSQL suites (HUB_TEST_PG_URL set), on a machine that can
 * run a private cluster (server binaries, root to act as `postgres`). Under CI=true a machine that
 * cannot is an error, never a silent skip.
 */
export function privatePostgresAvailable(): boolean {
  if (!requireService(PG_URL_VAR)) return false;
  const able = serverBin() !== null && process.getuid?.() === 0;
  if (!able && process.env.CI === 'true')
    throw new Error(`CI=true but no PostgreSQL server binaries under ${ROOT} or not root.`);
  return able;
}

/** Runs a server binary as the `postgres` OS user. */
const asPostgres = (bin: string, args: string[]) =>
  run('runuser', ['-u', 'postgres', '--', bin, ...args], { timeout: 60_000 });

/** The pids of the postmaster's children (backends, checkpointer, walwriter …). */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // `pid (comm) state ppid …`; comm may hold spaces, so read after the last ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) children.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return children;
}

export interface UsedPrivatePostgres extends UsedTestDriver {
  /** SIGSTOP the postmaster, then every process it forked: the whole server stops answering. */
  freeze(): void;
  /** SIGCONT every process of the cluster. */
  thaw(): void;
}

/**
 * For the enclosing describe block: a private cluster (beforeAll) and a driver on its `postgres`
 * database with `options` (timeouts, pool size) added; closed, stopped and removed in afterAll.
 */
export function usePrivatePostgres(options: Partial<PostgresDbConfig> = {}): UsedPrivatePostgres {
  let dir: string | undefined;
  let data = '';
  let driver: StorageDriver | undefined;
  let config: PostgresDbConfig | undefined;
  let frozen: number[] = [];
  const bin = serverBin()!;
  const postmaster = () =>
    Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const thaw = () => {
    for (const pid of frozen.reverse()) {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // Exited.
      }
    }
    frozen = [];
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hub-pg-'));
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    await chown(dir, Number(stdout.trim()), Number(gid.trim()));
    data = join(dir, 'data');
    await asPostgres(join(bin, 'initdb'), [
      '-D',
      data,
      '-U',
      'postgres',
      '-A',
      'trust',
      '--no-sync',
    ]);
    const port = await freePort();
    await asPostgres(join(bin, 'pg_ctl'), [
      '-D',
      data,
      '-l',
      join(dir, 'server.log'),
      '-w',
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
      'start',
    ]);
    config = {
      driver: 'postgres',
      host: '127.0.0.1',
      port,
      user: 'postgres',
      password: '',
      database: 'postgres',
      max: 10,
      connectionTimeoutMillis: 10_000,
      ...options,
    };
    driver = await createDriver(config);
  });
  afterAll(async () => {
    thaw();
    await driver?.close().catch(() => undefined);
    if (!dir) return;
    await asPostgres(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', 'stop']).catch(
      async (error: unknown) => {
        const log = await readFile(join(dir!, 'server.log'), 'utf8').catch(() => '');
        console.error('pg_ctl stop failed', error, log.slice(-2000));
      },
    );
    await rm(dir, { recursive: true, force: true });
  });

  const opened = () => {
    if (!driver || !config) throw new Error('The private cluster starts in beforeAll.');
    return { driver, config };
  };
  return {
    kind: 'postgres',
    get driver() {
      return opened().driver;
    },
    get database() {
      return {
        config: opened().config,
        query: async () => {
          throw new Error('query() is not offered on the private cluster');
        },
        drop: async () => undefined,
      };
    },
    freeze() {
      const main = postmaster();
      // The postmaster first, so it forks nothing new while its children are stopped.
      process.kill(main, 'SIGSTOP');
      frozen.push(main);
      for (const pid of childrenOf(main)) {
        process.kill(pid, 'SIGSTOP');
        frozen.push(pid);
      }
    },
    thaw,
  };
}
