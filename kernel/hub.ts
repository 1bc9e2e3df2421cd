/**
 * `createHub` composes the hub: it opens (and, on SQLite, migrates) the database, provisions
 * identity, opens the throttle store, sets up the plugins in dependency order, wires config reload
 * (which can swap the database and the throttle store while serving) and hands all of it to the
 * request pipeline (http/pipeline.ts). It never listens: runtime/node.ts and runtime/deno.ts serve
 * `hub.fetch`; tests call `hub.app.request()` with no socket at all.
 */
import type { Context, Hono } from 'hono';
import { createAuditSink, type AuditSink } from './audit.ts';
import { systemClock, type Clock } from './clock.ts';
import type { Env } from './config/interpolate.ts';
import type { HubConfig } from './config/load.ts';
import type { ReloadOutcome } from './config/reload.ts';
import { kernelSections } from './config/sections.ts';
import { createMemoryEventBus, type EventBus } from './events.ts';
import { throttleGuard } from './http/auth.ts';
import { clientIpResolver } from './http/client-address.ts';
import { createInProcess } from './http/in-process.ts';
import { createCounts } from './http/counts.ts';
import type { Edge } from './http/edge.ts';
import { createPipeline } from './http/pipeline.ts';
import { createTenantCache, type TenantCache } from './http/tenant.ts';
import { createReadCache } from './cache.ts';
import { createIdentity, type Identity } from './identity/identity.ts';
import { provision } from './identity/provision.ts';
import { catchUpSchema, collectMigrations, collectTables } from './schema.ts';
import { createLogger, type Logger } from './log.ts';
import { createHubMetrics, type HubMetrics } from './metrics.ts';
import type { KernelEnv, PluginDefinition, PluginInstance } from './plugin.ts';
import { orderPlugins, setUpPlugins } from './registry.ts';
import type { Migration, StorageDriver } from './storage/contract.ts';
import { createDriver } from './storage/create-driver.ts';
import type { Table } from './storage/table.ts';
import type { ThrottleStore } from './throttle/contract.ts';
import { createThrottleStore } from './throttle/create-store.ts';
import { throttlePolicy } from './redis/config.ts';
import { createRetirement, type Retirement } from './swap.ts';
import { hubReload, type Live, type OpenedKernel } from './hub-reload.ts';

export interface CreateHubOptions {
  config: HubConfig;
  /** The file the config came from (for reload), or null on built-in defaults. */
  configPath?: string | null;
  /**
   * With no `configPath` (built-in defaults): the file a start would have read, `./server.yaml` of
   * its directory. A reload reads it once it exists, so an operator can create it after the first
   * start.
   */
  defaultConfigPath?: string | null;
  /** Variables for `${NAME}` when a reload re-reads the file. @default process.env */
  env?: Env;
  plugins: readonly PluginDefinition<any>[];
  /** Use this driver instead of opening `config.db` (tests share one). The hub will not close it. */
  driver?: StorageDriver;
  /** Use this throttle store instead of building one from `config.redis`. */
  throttle?: ThrottleStore;
  clock?: Clock;
  log?: Logger;
  /** The client's address as the runtime sees it (socket peer). */
  clientIp?: (c: Context<KernelEnv>) => string | undefined;
  /**
   * Apply pending migrations before serving. Default: only on the embedded SQLite database; shared
   * databases are migrated deliberately with `workspace-hub migrate`.
   */
  migrate?: boolean;
}

export interface Hub {
  app: Hono<KernelEnv>;
  fetch: (request: Request, env?: unknown) => Response | Promise<Response>;
  /**
   * A fixed answer (`GET /health`), or the refusal of a client known to be blocked, for a runtime
   * that writes it to its socket itself, with the request id, metrics and access line the app
   * would give it; undefined: serve it through `fetch`.
   */
  answerFixed: Edge['answerFixed'];
  config(): HubConfig;
  driver(): StorageDriver;
  identity: Identity;
  events: EventBus;
  /** Where security and administrative events go (the audit plugin stores them). */
  audit: AuditSink;
  log: Logger;
  tenants: TenantCache;
  /** Every migration the kernel and plugins declare, in order. */
  migrations: readonly Migration[];
  /** Every table the kernel and plugins declare (export and import iterate these). */
  tables: readonly Table[];
  /** The hub's Prometheus registry and recorders. */
  metrics: HubMetrics;
  /**
   * Tells plugins the hub is going down (aborts their shutdown signal) without closing anything,
   * so long-lived responses such as notice streams end before the server drains connections.
   */
  beginShutdown(): void;
  /** Re-reads the config file and applies it (see config/reload.ts); never throws. */
  reload(): Promise<ReloadOutcome>;
  close(): Promise<void>;
}

export async function createHub(options: CreateHubOptions): Promise<Hub> {
  const kernel = await openKernel(options);
  const { live, log, clock, cache, audit, identity, plugins, migrations, tables } = kernel;
  // What the hub opened after its kernel; the throttle store and the database close after them.
  const closers: (() => Promise<void>)[] = [];
  try {
    const driver = () => live.driver;
    const config = () => live.config;
    const events = createMemoryEventBus((error) => log.error('Event handler failed', { error }));
    closers.push(() => events.close());
    const shutdown = new AbortController();
    const tenants = createTenantCache(() => identity.tenants);
    const metrics = createHubMetrics(
      () => live.driver.poolStats?.() ?? null,
      () => cache.stats(),
    );

    // A request the hub runs in process for a plugin comes from the client that plugin serves.
    const inProcess = createInProcess();
    const resolveIp = clientIpResolver(config, options.clientIp);
    const clientIp = (c: Context<KernelEnv>) => inProcess.callerOf(c.req.raw)?.ip ?? resolveIp(c);
    const counts = createCounts();
    const policy = () => throttlePolicy(live.config.redis);
    const throttle = () => live.throttle;
    const instances = await setUpPlugins(
      plugins,
      {
        hubConfig: config,
        identity,
        storage: (tenantId, context) => live.driver.forTenant(tenantId, context),
        events,
        clock,
        signal: shutdown.signal,
        throttle: throttleGuard({ throttle, policy }),
        clientIp,
        cache,
        audit,
        api: inProcess,
        counts,
      },
      log,
      metrics,
    );

    // Config reload swaps the connections behind the getters above.
    const retirement = createRetirement(log, () => live.config.server.shutdownTimeoutMs);
    const reload = hubReload(kernel, options, { instances, events, tenants, retirement });

    const {
      app,
      answerFixed,
      close: closePipeline,
    } = createPipeline({
      config,
      log,
      metrics,
      identity,
      driver,
      throttle,
      policy,
      clientIp,
      tenants,
      migrations,
      shuttingDown: () => shutdown.signal.aborted,
      retirement: retirement.middleware,
      reload,
      plugins,
      instances,
      callerOf: inProcess.callerOf,
      cacheStats: () => cache.stats(),
      counts,
    });
    inProcess.bind(app);
    closers.push(closePipeline);

    let closed = false;
    return {
      app,
      fetch: (request, env) => app.fetch(request, env),
      answerFixed,
      config,
      driver,
      identity,
      events,
      audit,
      log,
      tenants,
      migrations,
      tables,
      metrics,
      beginShutdown: () => shutdown.abort(),
      reload,
      async close() {
        if (closed) return;
        closed = true;
        await closeHub({ shutdown, instances, retirement, closers, live, log });
      },
    };
  } catch (error) {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    if (live.ownsThrottle) await live.throttle.close().catch(() => undefined);
    if (live.ownsDriver) await live.driver.close().catch(() => undefined);
    throw error;
  }
}

/**
 * The kernel before the plugins: the plugins in dependency order with their tables and migrations,
 * the database at the current schema and provisioned, the log, the read cache, the audit sink,
 * identity, and last the throttle store. On a failure it closes
 * the database it opened.
 */
async function openKernel(
  options: CreateHubOptions,
): Promise<OpenedKernel & { identity: Identity }> {
  const clock = options.clock ?? systemClock;
  const plugins = orderPlugins(options.plugins, Object.keys(kernelSections));
  const tables = collectTables(plugins);
  const migrations = collectMigrations(plugins);
  // The config and the database as they are now: a config reload replaces them in place.
  const opened = {
    config: options.config,
    driver: options.driver ?? (await createDriver(options.config.db)),
    ownsDriver: !options.driver,
  };
  // Read at every line, so a reload of the `logging` section applies at once.
  const log = options.log ?? createLogger(() => opened.config.logging);
  try {
    await catchUpSchema(
      opened.driver,
      migrations,
      options.migrate ?? opened.driver.migratesOnStart,
      log,
    );
    const cache = createReadCache(() => opened.config.server.cacheBytes);
    const audit = createAuditSink();
    const identity = createIdentity({
      driver: () => opened.driver,
      clock,
      tables: () => tables,
      cache,
      audit,
    });
    await provision(opened.driver, identity, clock, log);
    // The same object with the throttle store added, so the getters above see a reload's swaps.
    const live: Live = Object.assign(opened, {
      throttle:
        options.throttle ?? createThrottleStore(opened.config.redis, log, opened.config.db.driver),
      ownsThrottle: !options.throttle,
    });
    return { live, log, clock, cache, audit, identity, plugins, migrations, tables };
  } catch (error) {
    if (opened.ownsDriver) await opened.driver.close().catch(() => undefined);
    throw error;
  }
}

/**
 * Closes the hub: tells plugins it is going down, closes them in reverse set-up order, waits for
 * retired connections, then closes what was opened after the kernel, the throttle store, and the
 * database last.
 */
async function closeHub(parts: {
  shutdown: AbortController;
  instances: readonly { name: string; instance: PluginInstance<any> }[];
  retirement: Retirement;
  closers: (() => Promise<void>)[];
  live: Live;
  log: Logger;
}): Promise<void> {
  const { log } = parts;
  parts.shutdown.abort();
  for (const { name, instance } of [...parts.instances].reverse()) {
    await instance
      .close?.()
      .catch((error) => log.error('Plugin failed to close', { plugin: name, error }));
  }
  await parts.retirement.settled();
  const { closers, live } = parts;
  const failed = (error: unknown) => log.error('Close failed', { error });
  for (const close of closers.reverse()) await close().catch(failed);
  if (live.ownsThrottle) await live.throttle.close().catch(failed);
  if (live.ownsDriver) await live.driver.close();
}
