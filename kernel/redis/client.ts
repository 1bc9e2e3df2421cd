/**
 * One way to open a Redis connection for the hub (throttle store now, pub/sub fan-out later).
 * The client fails fast instead of queueing: while Redis is down every command rejects at once, so
 * callers can answer 503 rather than hold requests, and it reconnects in the background so the hub
 * recovers on its own when Redis comes back.
 */
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import type { Logger } from '../log.ts';
import type { RedisConfig } from './config.ts';

/** The connection settings of the `redis` section; the throttle keys are not needed here. */
export type RedisConnectionConfig = Pick<
  RedisConfig,
  'host' | 'port' | 'password' | 'db' | 'connectTimeoutMillis'
>;

export interface RedisClientOptions {
  /** Names the connection in logs and in `CLIENT LIST`, e.g. `throttle`, `notice-sub`. @default 'hub' */
  purpose?: string;
  /** Receives one `error` line per outage and one `info` line when the connection is back. */
  log?: Pick<Logger, 'info' | 'error'>;
  /**
   * Milliseconds a command may wait for its reply; a socket with a pending command that stays
   * silent this long is dropped and reconnected. @default config.connectTimeoutMillis
   */
  commandTimeoutMillis?: number;
}

let ioredis: typeof import('ioredis') | undefined;
/**
 * ioredis, loaded on the first connection: a hub without a `redis` section (and every CLI
 * command) never pays for it. It is a CommonJS package, so a synchronous require keeps this API.
 */
function loadIoredis(): typeof import('ioredis') {
  return (ioredis ??= createRequire(import.meta.url)('ioredis') as typeof import('ioredis'));
}

/**
 * Longest pause between reconnection attempts: bounds how long the hub stays down after Redis is
 * back, since the throttle's circuit breaker can only close once a connection is ready again. Kept
 * short: an attempt costs one TCP connection.
 */
const MAX_RECONNECT_DELAY_MS = 500;

/** Reconnect delay: 100 ms doubling up to {@link MAX_RECONNECT_DELAY_MS}, with jitter so instances spread out. */
function reconnectDelay(attempt: number): number {
  const base = Math.min(100 * 2 ** Math.min(attempt - 1, 10), MAX_RECONNECT_DELAY_MS);
  return base + Math.floor(Math.random() * 100);
}

/**
 * Creates a connected-in-the-background ioredis client. Never throws or crashes the process on
 * connection errors; use {@link waitForRedis} to wait for the first connection and
 * {@link closeRedisClient} to close it.
 */
export function createRedisClient(
  config: RedisConnectionConfig,
  options: RedisClientOptions = {},
): Redis {
  const purpose = options.purpose ?? 'hub';
  const timeout = options.commandTimeoutMillis ?? config.connectTimeoutMillis;
  const { Redis: RedisClient } = loadIoredis();
  const client = new RedisClient({
    host: config.host,
    port: config.port,
    password: config.password,
    db: config.db,
    connectionName: `workspace-hub:${purpose}`,
    // Listeners must be attached before the first attempt, hence lazy + explicit connect below.
    lazyConnect: true,
    // No queueing while disconnected: a queued INCR would stall auth and could count twice.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    connectTimeout: config.connectTimeoutMillis,
    commandTimeout: timeout,
    // A server that accepts but never answers (stalled, half-open) must still count as down.
    socketTimeout: timeout,
    retryStrategy: reconnectDelay,
    // Commands issued in one turn of the event loop (many requests' throttle checks under load)
    // leave in one write instead of one system call each.
    enableAutoPipelining: true,
  });

  const where = { purpose, address: `${config.host}:${config.port}` };
  let downSince: number | null = null;
  client.on('error', (error: Error) => {
    // Every failed reconnection emits an error; one line per outage is enough.
    if (downSince !== null) return;
    downSince = Date.now();
    options.log?.error('Redis is unavailable; retrying in the background', {
      ...where,
      error: redact(error.message, config.password),
    });
  });
  client.on('ready', () => {
    if (downSince === null) return;
    const downForMs = Date.now() - downSince;
    downSince = null;
    options.log?.info(`Redis is reachable again after ${(downForMs / 1000).toFixed(1)} s`, {
      ...where,
      downForMs,
    });
  });
  // The rejection is already reported through the `error` event, and retryStrategy keeps trying.
  client.connect().catch(() => undefined);
  return client;
}

/**
 * Resolves `true` once the client is ready, or `false` as soon as the connection attempt in
 * progress fails, the client has ended, or `timeoutMillis` passes. Never rejects.
 */
export function waitForRedis(client: Redis, timeoutMillis: number): Promise<boolean> {
  if (client.status === 'ready') return Promise.resolve(true);
  if (!['wait', 'connecting', 'connect'].includes(client.status)) return Promise.resolve(false);
  return new Promise((resolve) => {
    const settle = (ready: boolean) => {
      clearTimeout(timer);
      client.off('ready', onReady);
      client.off('close', onDown);
      client.off('end', onDown);
      resolve(ready);
    };
    const onReady = () => settle(true);
    const onDown = () => settle(false);
    const timer = setTimeout(onDown, timeoutMillis);
    client.once('ready', onReady);
    client.once('close', onDown);
    client.once('end', onDown);
  });
}

/**
 * Closes the client for good: a polite QUIT when connected (bounded by `timeoutMillis`), then
 * drops the socket and stops reconnecting. QUIT alone would fail while Redis is down (no offline
 * queue) and leave the reconnect loop running.
 */
export async function closeRedisClient(client: Redis, timeoutMillis = 1000): Promise<void> {
  if (client.status === 'ready') {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMillis);
    });
    await Promise.race([
      client.quit().then(
        () => undefined,
        () => undefined,
      ),
      timeout,
    ]);
    clearTimeout(timer);
  }
  client.disconnect();
}

/** Belt and braces: error texts should never carry the password, but make sure. */
function redact(message: string, password: string | undefined): string {
  return password ? message.split(password).join('***') : message;
}
