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
import { createReloader, pluginReloadTargets, type ReloadOutcome } from './config/reload.ts';
import { auditedReload } from './config/reload-audit.ts';
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
import { DEFAULT_TENANT_ID } from './identity/tenants.ts';
import { provision } from './identity/provision.ts';
import { catchUpSchema, collectMigrations, collectTables } from './schema.ts';
import { createLogger, type Logger } from './log.ts';
import { createHubMetrics, type HubMetrics } from './metrics.ts';
import type { KernelEnv, PluginDefinition } from './plugin.ts';
import { orderPlugins, setUpPlugins } from './registry.ts';
import type { Migration, StorageDriver } from './storage/contract.ts';
import { createDriver } from './storage/create-driver.ts';
import type { Table } from './storage/table.ts';
import type { ThrottleStore } from './throttle/contract.ts';
import { createThrottleStore } from './throttle/create-store.ts';
import { throttlePolicy } from './redis/config.ts';
import { createRetirement, openVerifiedDriver, openVerifiedThrottle } from './swap.ts';

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
   * A fixed answer (`GET /health`) for a runtime that writes it to its socket itself, with the
   * request id, metrics and access line the app would give it; undefined: serve it through `fetch`.
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
  let config = options.config;
  const clock = options.clock ?? systemClock;
  // Read at every line, so a reload of the `logging` section applies at once.
  const log = options.log ?? createLogger(() => config.logging);
  const plugins = orderPlugins(options.plugins, Object.keys(kernelSections));
  const tables = collectTables(plugins);
  const migrations = collectMigrations(plugins);

  // Reassigned by a config reload that switches databases; the hub owns every driver it opened.
  let ownsDriver = !options.driver;
  let driver = options.driver ?? (await createDriver(config.db));
  const closers: (() => Promise<void>)[] = [];
  try {
    await catchUpSchema(driver, migrations, options.migrate ?? driver.kind === 'sqlite', log);
    const cache = createReadCache(() => config.server.cacheBytes);
    const audit = createAuditSink();
    const identity = createIdentity({
      driver: () => driver,
      clock,
      tables: () => tables,
      cache,
      audit,
    });
    await provision(driver, identity, clock, log);

    let ownsThrottle = !options.throttle;
    let throttle = options.throttle ?? createThrottleStore(config.redis, log, config.db.driver);
    closers.push(async () => {
      if (ownsThrottle) await throttle.close();
    });
    const events = createMemoryEventBus((error) => log.error('Event handler failed', { error }));
    closers.push(() => events.close());
    const shutdown = new AbortController();
    const tenants = createTenantCache(() => identity.tenants);
    const metrics = createHubMetrics(
      () => driver.poolStats?.() ?? null,
      () => cache.stats(),
    );

    // A request the hub runs in process for a plugin comes from the client that plugin serves.
    const inProcess = createInProcess();
    const resolveIp = clientIpResolver(() => config, options.clientIp);
    const clientIp = (c: Context<KernelEnv>) => inProcess.callerOf(c.req.raw)?.ip ?? resolveIp(c);
    const counts = createCounts();
    const policy = () => throttlePolicy(config.redis);
    const pluginThrottle = throttleGuard({ throttle: () => throttle, policy });
    const instances = await setUpPlugins(
      plugins,
      {
        hubConfig: () => config,
        identity,
        storage: (tenantId) => driver.forTenant(tenantId),
        events,
        clock,
        signal: shutdown.signal,
        throttle: pluginThrottle,
        clientIp,
        cache,
        audit,
        api: inProcess,
        counts,
      },
      log,
      metrics,
    );

    // Config reload swaps the connections behind the getters above. An old connection is closed
    // once the requests that started before the swap have finished.
    const retirement = createRetirement(log, () => config.server.shutdownTimeoutMs);
    const reloader = createReloader({
      configPath: options.configPath ?? null,
      defaultConfigPath: options.defaultConfigPath ?? null,
      env: options.env ?? globalThis.process?.env ?? {},
      ...pluginReloadTargets(plugins, instances),
      current: () => config,
      commit: (next) => void (config = next),
      async swapDriver(next) {
        const fresh = await openVerifiedDriver(next, {
          migrations,
          tables: () => tables,
          clock,
          log,
          migrate: options.migrate,
        });
        const [old, owned] = [driver, ownsDriver];
        [driver, ownsDriver] = [fresh, true];
        tenants.invalidate();
        cache.clear();
        retirement.retire('database connection', async () => (owned ? old.close() : undefined));
      },
      async swapThrottle(next) {
        const fresh = await openVerifiedThrottle(next, log, config.db.driver);
        const [old, owned] = [throttle, ownsThrottle];
        [throttle, ownsThrottle] = [fresh, true];
        retirement.retire('throttle store', async () => (owned ? old.close() : undefined));
      },
      events,
      log,
    });
    const reload = auditedReload(reloader, {
      audit,
      store: () => driver.forTenant(DEFAULT_TENANT_ID),
      configPath: options.configPath ?? null,
      log,
    });

    const {
      app,
      answerFixed,
      close: closePipeline,
    } = createPipeline({
      config: () => config,
      log,
      metrics,
      identity,
      driver: () => driver,
      throttle: () => throttle,
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
      config: () => config,
      driver: () => driver,
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
        shutdown.abort();
        for (const { name, instance } of [...instances].reverse()) {
          await instance
            .close?.()
            .catch((error) => log.error('Plugin failed to close', { plugin: name, error }));
        }
        await retirement.settled();
        for (const close of closers.reverse())
          await close().catch((error) => log.error('Close failed', { error }));
        if (ownsDriver) await driver.close();
      },
    };
  } catch (error) {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    if (ownsDriver) await driver.close().catch(() => undefined);
    throw error;
  }
}
