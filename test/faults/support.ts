/**
 * Tools for the fault suites: a TCP proxy that can stall or cut a database connection (and a hub
 * whose driver goes through one), a private `redis-server` child, a recorder of uncaught
 * exceptions, a log capture, and ways to kill the hub's own database connections. The shared
 * services themselves are never stopped.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { afterAll } from 'vitest';
import type { DbConfig } from '../../kernel/storage/config.ts';
import { eventually } from '../helpers/async.ts';
import type { DriverKind } from '../helpers/drivers.ts';
import {
  useTestDriver,
  useTestHub,
  type TestHubOptions,
  type UsedTestHub,
} from '../helpers/hub.ts';
import { freePort } from '../helpers/net.ts';
import { startTcpProxy } from '../helpers/tcp-proxy.ts';
import { createLogger, type Logger } from '../../kernel/log.ts';

/** Records every uncaught exception and unhandled rejection of this process while installed. */
export function recordCrashes(): { errors: unknown[]; dispose(): void } {
  const errors: unknown[] = [];
  const onError = (error: unknown) => void errors.push(error);
  process.on('uncaughtException', onError);
  process.on('unhandledRejection', onError);
  return {
    errors,
    dispose() {
      process.off('uncaughtException', onError);
      process.off('unhandledRejection', onError);
    },
  };
}

/** A real hub logger (JSON lines) whose output the test can read. */
export function captureLog(): { log: Logger; entries(): Array<Record<string, any>> } {
  const lines: string[] = [];
  return {
    log: createLogger({ level: 'info', format: 'json', write: (line) => void lines.push(line) }),
    entries: () => lines.map((line) => JSON.parse(line) as Record<string, any>),
  };
}

export interface FaultProxy {
  port: number;
  /** Stops forwarding in both directions; bytes are held (new connections too) until `resume`. */
  pause(): void;
  /** Forwards everything held, and from now on. */
  resume(): void;
  /** Drops every connection and refuses new ones until `restore` (an unreachable database). */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

/** A TCP proxy in front of `host:port` that a test can stall or cut. */
export async function startFaultProxy(host: string, port: number): Promise<FaultProxy> {
  let paused = false;
  let cut = false;
  const proxy = await startTcpProxy({
    host,
    port,
    refuse: () => cut,
    pair(client, upstream) {
      const pair = { client, upstream, held: [] as Array<[net.Socket, Buffer]> };
      const forward = (to: net.Socket) => (chunk: Buffer) => {
        if (paused) pair.held.push([to, chunk]);
        else to.write(chunk);
      };
      client.on('data', forward(upstream));
      upstream.on('data', forward(client));
      return pair;
    },
  });
  return {
    port: proxy.port,
    pause: () => void (paused = true),
    resume() {
      paused = false;
      for (const pair of proxy.pairs) {
        for (const [to, chunk] of pair.held.splice(0)) if (!to.destroyed) to.write(chunk);
      }
    },
    cut() {
      cut = true;
      proxy.destroyAll();
      proxy.pairs.clear();
    },
    restore: () => void (cut = false),
    close: () => proxy.close(),
  };
}

/**
 * For the enclosing describe block: a hub on a new `kind` database whose driver reaches the database
 * (or the Firestore emulator) through a {@link FaultProxy}, with `driverOptions` (timeouts, pool
 * size) added to its config. The proxy forwards again before the hub closes, and closes last.
 */
export function useHubBehindProxy(
  kind: DriverKind,
  driverOptions: Record<string, unknown>,
  hubOptions: TestHubOptions = {},
): { t: UsedTestHub; readonly proxy: FaultProxy } {
  let proxy: FaultProxy | undefined;
  afterAll(async () => {
    await proxy?.close();
  });
  const db = useTestDriver(kind, async (config) => {
    if (config.driver === 'firestore') {
      const [host, port] = process.env.FIRESTORE_EMULATOR_HOST!.split(':');
      proxy = await startFaultProxy(host!, Number(port));
      // The client finds the emulator through this variable when it is created; a test file runs in
      // its own process, so only this suite's clients go through the proxy.
      process.env.FIRESTORE_EMULATOR_HOST = `127.0.0.1:${proxy.port}`;
      return { ...config, ...driverOptions } as DbConfig;
    }
    const { host, port } = config as { host: string; port: number };
    proxy = await startFaultProxy(host, port);
    return { ...config, host: '127.0.0.1', port: proxy.port, ...driverOptions } as DbConfig;
  });
  const t = useTestHub(db, hubOptions);
  afterAll(() => {
    proxy?.resume();
    proxy?.restore();
  });
  return {
    t,
    get proxy() {
      if (!proxy) throw new Error('The fault proxy starts in beforeAll: read it inside tests.');
      return proxy;
    },
  };
}

/** Ends every PostgreSQL backend connected to `database` (the hub's own), from an admin connection. */
export async function terminatePgBackends(adminUrl: string, database: string): Promise<number> {
  const { default: pg } = await import('pg');
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const result = await admin.query(
      'SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [database],
    );
    return result.rows.filter((row) => row.ok).length;
  } finally {
    await admin.end();
  }
}

/** `KILL`s every MariaDB/MySQL connection using `database` (the hub's own). */
export async function killMysqlConnections(adminUrl: string, database: string): Promise<number> {
  const mysql = await import('mysql2/promise');
  const url = new URL(adminUrl);
  const admin = await mysql.createConnection({
    host: url.hostname,
    port: Number(url.port || 3306),
    user: decodeURIComponent(url.username) || 'root',
    password: decodeURIComponent(url.password),
  });
  try {
    const [rows] = await admin.query(
      'SELECT id FROM information_schema.processlist WHERE db = ? AND id <> CONNECTION_ID()',
      [database],
    );
    let killed = 0;
    for (const { id } of rows as Array<{ id: number }>) {
      try {
        await admin.query(`KILL ${Number(id)}`);
        killed += 1;
      } catch {
        // Already gone.
      }
    }
    return killed;
  } finally {
    await admin.end();
  }
}

export interface RedisChild {
  port: number;
  start(): Promise<void>;
  /** SIGKILL: the server dies without closing its connections politely. */
  kill(): Promise<void>;
}

/** A private `redis-server` on a free port, nothing saved to disk. */
export async function privateRedis(): Promise<RedisChild> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  const reachable = () =>
    new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
  return {
    port,
    async start() {
      child = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        { stdio: 'ignore' },
      );
      await eventually(reachable, 10_000, 'redis-server to listen');
    },
    async kill() {
      const running = child;
      child = null;
      if (!running || running.exitCode !== null) return;
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.kill('SIGKILL');
      await exited;
    },
  };
}
