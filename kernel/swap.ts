/**
 * Replacing the database or Redis connection of a running hub (config reload). The new connection
 * is built and verified before anything changes; the old one is closed only after the requests
 * that started on it have finished, so a switch fails no request in flight.
 */
import type { MiddlewareHandler } from 'hono';
import type { Clock } from './clock.ts';
import { createIdentity } from './identity/identity.ts';
import { provision } from './identity/provision.ts';
import type { Logger } from './log.ts';
import type { RedisConfig } from './redis/config.ts';
import type { DbConfig } from './storage/config.ts';
import type { Migration, StorageDriver } from './storage/contract.ts';
import { createDriver } from './storage/create-driver.ts';
import { runMigrations } from './storage/migrate.ts';
import type { Table } from './storage/table.ts';
import type { ThrottleStore } from './throttle/contract.ts';
import { createThrottleStore } from './throttle/create-store.ts';

/**
 * Counts requests in flight per "generation". A swap starts a new generation and waits until the
 * old one is empty. A request joins the generation current when it arrives, before it reads the
 * driver, so it can never be counted in a newer generation than the connection it uses.
 */
export interface Generations {
  middleware: MiddlewareHandler;
  /** Starts a new generation; resolves true once the previous one is idle, false on timeout. */
  advance(timeoutMs: number): Promise<boolean>;
}

export function createGenerations(): Generations {
  interface Generation {
    active: number;
    idle?: () => void;
  }
  let current: Generation = { active: 0 };
  // Each advance also waits for every earlier generation: two swaps in one reload (db, then
  // redis) must not close the old Redis client while requests from before the db swap still run.
  let allDrained: Promise<boolean> = Promise.resolve(true);
  return {
    async middleware(_c, next) {
      const generation = current;
      generation.active += 1;
      try {
        await next();
      } finally {
        generation.active -= 1;
        if (generation.active === 0) generation.idle?.();
      }
    },
    advance(timeoutMs) {
      const old = current;
      current = { active: 0 };
      const idle: Promise<boolean> =
        old.active === 0
          ? Promise.resolve(true)
          : new Promise((resolve) => {
              const timer = setTimeout(() => resolve(false), timeoutMs);
              old.idle = () => {
                clearTimeout(timer);
                resolve(true);
              };
            });
      allDrained = Promise.all([allDrained, idle]).then(([earlier, now]) => earlier && now);
      return allDrained;
    },
  };
}

/** Closes retired connections once their requests have finished; see {@link Generations}. */
export interface Retirement {
  middleware: MiddlewareHandler;
  /** Starts a new generation and closes `close`'s connection when the older ones are idle. */
  retire(what: string, close: () => Promise<void>): void;
  /** Resolves when every retired connection is closed (the hub's `close` waits for it). */
  settled(): Promise<void>;
}

export function createRetirement(log: Logger, timeoutMs: () => number): Retirement {
  const generations = createGenerations();
  const pending = new Set<Promise<void>>();
  return {
    middleware: generations.middleware,
    retire(what, close) {
      const task: Promise<void> = generations
        .advance(timeoutMs())
        .then(async (drained) => {
          if (!drained)
            log.warn(
              `Requests on the old ${what} still ran after server.shutdownTimeoutMs; closing it anyway`,
            );
          await close().catch((error) => log.error(`Closing the old ${what} failed`, { error }));
        })
        .finally(() => pending.delete(task));
      pending.add(task);
    },
    settled: async () => void (await Promise.all(pending)),
  };
}

export interface DriverSetup {
  migrations: readonly Migration[];
  tables: () => readonly Table[];
  clock: Clock;
  log: Logger;
  /** Apply pending migrations (default: only on embedded SQLite, as at start-up). */
  migrate?: boolean | undefined;
}

/** Opens the database of `config`, checks it answers and has the current schema, provisions it. */
export async function openVerifiedDriver(
  config: DbConfig,
  setup: DriverSetup,
): Promise<StorageDriver> {
  const driver = await createDriver(config);
  try {
    await driver.ping();
    const applied = new Set(await driver.appliedMigrations());
    const pending = setup.migrations.filter((m) => !applied.has(m.id)).map((m) => m.id);
    if (pending.length > 0) {
      if (!(setup.migrate ?? driver.migratesOnStart)) {
        throw new Error(
          `The new database's schema is not up to date (${pending.length} pending migration(s)); run "workspace-hub migrate" against it first.`,
        );
      }
      await runMigrations(driver, setup.migrations, setup.log);
    }
    // An identity bound to the new driver: the hub's own still reads the old one until the swap.
    const identity = createIdentity({
      driver: () => driver,
      clock: setup.clock,
      tables: setup.tables,
    });
    await provision(driver, identity, setup.clock, setup.log);
    return driver;
  } catch (error) {
    await driver.close().catch(() => undefined);
    throw error;
  }
}

/** The throttle store for `redis`, verified with a PING (bounded by its connect timeout). */
export async function openVerifiedThrottle(
  redis: RedisConfig | undefined,
  log: Logger,
  driver: DbConfig['driver'],
): Promise<ThrottleStore> {
  const store = createThrottleStore(redis, log, driver);
  try {
    await store.ping();
    return store;
  } catch (error) {
    await store.close().catch(() => undefined);
    throw error;
  }
}
