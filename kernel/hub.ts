/**
 * `createHub` builds the whole application — storage, identity, throttle, plugins, the request
 * pipeline — and never listens. Runtimes (runtime/node.ts, later runtime/deno.ts) serve `hub.fetch`;
 * tests call `hub.app.request()` with no socket at all.
 */
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { requestId } from 'hono/request-id';
import { matchedRoutes } from 'hono/route';
import { systemClock, type Clock } from './clock.ts';
import type { Env } from './config/interpolate.ts';
import type { HubConfig } from './config/load.ts';
import { createReloader, pluginReloadTargets, reloadHandler, type ReloadOutcome } from './config/reload.ts';
import { kernelSections } from './config/sections.ts';
import { HttpError, notFound } from './errors.ts';
import { createMemoryEventBus, type EventBus } from './events.ts';
import { apiDocsRoutes, kernelRouteDocs } from './http/api-docs.ts';
import { bearerAuth, requireAdmin, throttleGuard, type AuthPolicy } from './http/auth.ts';
import { describeMiddleware } from './http/openapi.ts';
import { urlLimit } from './http/limits.ts';
import { serializeError } from './http/serialize-error.ts';
import { createTenantCache, resolveTenant, type TenantCache } from './http/tenant.ts';
import { createReadCache } from './cache.ts';
import { createIdentity, type Identity } from './identity/identity.ts';
import { changeFeedMigration, kernelMigrations, kernelTables, provision } from './identity/provision.ts';
import { createLogger, writes, type Logger } from './log.ts';
import { createOutageLog } from './outage.ts';
import { createHubMetrics, metricsTokenMatches, UNMATCHED_ROUTE, type HubMetrics } from './metrics.ts';
import { healthzHandler, readyzHandler } from './http/probes.ts';
import type { KernelEnv, PluginContext, PluginDefinition, PluginInstance } from './plugin.ts';
import { allowedMethods, assertNoRouteClashes, orderPlugins } from './registry.ts';
import type { Migration, StorageDriver } from './storage/contract.ts';
import { createDriver } from './storage/create-driver.ts';
import { runMigrations } from './storage/migrate.ts';
import type { Table } from './storage/table.ts';
import type { ThrottleStore } from './throttle/contract.ts';
import { createThrottleStore } from './throttle/create-store.ts';
import { redisSchema } from './redis/config.ts';
import { createRetirement, openVerifiedDriver, openVerifiedThrottle } from './swap.ts';

/** Throttle numbers when there is no redis section: the schema's own defaults. */
const THROTTLE_DEFAULTS: AuthPolicy = (({ maxFailures, windowSeconds, blockSeconds, maxFailuresPerIp }) => ({ maxFailures, windowSeconds, blockSeconds, maxFailuresPerIp }))(redisSchema.parse({}));

const JSON_TYPE = /^\s*application\/([\w.+-]*\+)?json\s*(;|$)/i;

export interface CreateHubOptions {
  config: HubConfig;
  /** The file the config came from (for reload), or null on built-in defaults. */
  configPath?: string | null;
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
  config(): HubConfig;
  driver(): StorageDriver;
  identity: Identity;
  events: EventBus;
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

/** Every migration of the kernel and the given plugins, kernel first, then plugins in dependency order. */
export function collectMigrations(plugins: readonly PluginDefinition<any>[]): Migration[] {
  const ordered = orderPlugins(plugins, Object.keys(kernelSections));
  return [...kernelMigrations, ...ordered.flatMap((p) => p.migrations ?? []), changeFeedMigration(collectTables(plugins))];
}

/** Every table of the kernel and the given plugins (what export and import iterate). */
export function collectTables(plugins: readonly PluginDefinition<any>[]): Table[] {
  return [...kernelTables, ...orderPlugins(plugins, Object.keys(kernelSections)).flatMap((p) => p.tables ?? [])];
}

export class PendingMigrationsError extends Error {
  constructor(pending: readonly string[]) {
    super(`The database schema is not up to date (${pending.length} pending migration(s): ${pending.join(', ')}). Run "workspace-hub migrate" first, or start with --migrate.`);
    this.name = 'PendingMigrationsError';
  }
}

function clientIpResolver(config: () => HubConfig, fromRuntime?: (c: Context<KernelEnv>) => string | undefined) {
  return (c: Context<KernelEnv>): string => {
    if (config().server.trustProxy) {
      // The right-most entry is the one our proxy appended; entries left of it are whatever the
      // client sent, and trusting them would let a client pick its own throttle key.
      const forwarded = c.req.header('x-forwarded-for')?.split(',').at(-1)?.trim();
      if (forwarded) return forwarded;
    }
    return fromRuntime?.(c) ?? 'unknown';
  };
}

export async function createHub(options: CreateHubOptions): Promise<Hub> {
  let config = options.config;
  const clock = options.clock ?? systemClock;
  // Read at every line, so a reload of the `logging` section applies at once.
  const log = options.log ?? createLogger(() => config.logging);
  const plugins = orderPlugins(options.plugins, Object.keys(kernelSections));
  const tables: Table[] = [...kernelTables, ...plugins.flatMap((p) => p.tables ?? [])];
  const migrations = collectMigrations(plugins);

  // Reassigned by a config reload that switches databases; the hub owns every driver it opened.
  let ownsDriver = !options.driver;
  let driver = options.driver ?? (await createDriver(config.db));
  const closers: (() => Promise<void>)[] = [];
  try {
    const applied = new Set(await driver.appliedMigrations());
    const pending = migrations.filter((m) => !applied.has(m.id)).map((m) => m.id);
    if (pending.length > 0) {
      if (!(options.migrate ?? driver.kind === 'sqlite')) throw new PendingMigrationsError(pending);
      await runMigrations(driver, migrations, log);
    }
    const cache = createReadCache(() => config.server.cacheBytes);
    const identity = createIdentity({ driver: () => driver, clock, tables: () => tables, cache });
    await provision(driver, identity, clock, log);

    let ownsThrottle = !options.throttle;
    let throttle = options.throttle ?? createThrottleStore(config.redis, log);
    closers.push(async () => {
      if (ownsThrottle) await throttle.close();
    });
    const events = createMemoryEventBus((error) => log.error('Event handler failed', { error }));
    closers.push(() => events.close());
    const shutdown = new AbortController();
    const tenants = createTenantCache(() => identity.tenants);
    const metrics = createHubMetrics(() => driver.poolStats?.() ?? null, () => cache.stats());

    const clientIp = clientIpResolver(() => config, options.clientIp);
    // `policy` is declared below; the guard only calls it per request, after setup.
    const pluginThrottle = throttleGuard({ throttle: () => throttle, policy: () => policy() });
    const instances: { name: string; instance: PluginInstance<any> }[] = [];
    for (const plugin of plugins) {
      const section = plugin.config?.section;
      const ctx: PluginContext<any> = {
        config: () => (section ? config[section] : undefined),
        hubConfig: () => config,
        identity,
        storage: (tenantId) => driver.forTenant(tenantId),
        events,
        log: log.child({ plugin: plugin.name }),
        clock,
        signal: shutdown.signal,
        throttle: pluginThrottle,
        clientIp,
        metrics: metrics.forPlugin(plugin.name),
        cache,
      };
      instances.push({ name: plugin.name, instance: await plugin.setup(ctx) });
    }
    assertNoRouteClashes(instances);

    const policy = (): AuthPolicy => {
      const redis = config.redis;
      return redis
        ? { maxFailures: redis.maxFailures, windowSeconds: redis.windowSeconds, blockSeconds: redis.blockSeconds, maxFailuresPerIp: redis.maxFailuresPerIp }
        : THROTTLE_DEFAULTS;
    };

    // Config reload swaps the connections behind the getters above. An old connection is closed
    // once the requests that started before the swap have finished.
    const retirement = createRetirement(log, () => config.server.shutdownTimeoutMs);
    const reload = createReloader({
      configPath: options.configPath ?? null,
      env: options.env ?? globalThis.process?.env ?? {},
      ...pluginReloadTargets(plugins, instances),
      current: () => config,
      commit: (next) => void (config = next),
      async swapDriver(next) {
        const fresh = await openVerifiedDriver(next, { migrations, tables: () => tables, clock, log, migrate: options.migrate });
        const [old, owned] = [driver, ownsDriver];
        [driver, ownsDriver] = [fresh, true];
        tenants.invalidate();
        cache.clear();
        retirement.retire('database connection', async () => (owned ? old.close() : undefined));
      },
      async swapThrottle(next) {
        const fresh = await openVerifiedThrottle(next, log);
        const [old, owned] = [throttle, ownsThrottle];
        [throttle, ownsThrottle] = [fresh, true];
        retirement.retire('throttle store', async () => (owned ? old.close() : undefined));
      },
      events,
      log,
    });

    // The pipeline, in the order DESIGN.md gives.
    const app = new Hono<KernelEnv>();
    app.use('*', retirement.middleware);
    app.use('*', requestId());
    app.use('*', async (c, next) => {
      c.set('log', log.child({ requestId: c.var.requestId }));
      await next();
    });
    // Below `info` the access line would be dropped: then its fields are not even gathered.
    app.use('*', observeRequests(log, metrics, () => config.logging.accessLog && writes(config.logging.level, 'info'), () => config.metrics.enabled));
    app.use('*', urlLimit);
    // Probes and metrics answer before the tenant lookup, body checks and authentication: they
    // must work while the database is down, and are never throttled or counted as failures.
    app.get('/healthz', healthzHandler());
    app.get('/readyz', readyzHandler({
      driver: () => driver,
      throttle: () => throttle,
      redisConfigured: () => config.redis !== undefined,
      migrations,
      shuttingDown: () => shutdown.signal.aborted,
    }));
    app.get('/metrics', async (c) => {
      const settings = config.metrics;
      if (!settings.enabled) throw notFound('Not Found');
      if (settings.token !== undefined && !metricsTokenMatches(c.req.header('authorization'), settings.token)) {
        return c.json({ error: 'Unauthorized: /metrics needs the metrics token (metrics.token).' }, 401, { 'WWW-Authenticate': 'Bearer' });
      }
      return c.body(await metrics.render(), 200, { 'Content-Type': metrics.contentType, 'Cache-Control': 'no-store' });
    });
    const limitBody = bodyLimit({
      maxSize: config.server.bodyLimitBytes,
      onError: () => {
        throw new HttpError(413, `Request body is too large (limit ${config.server.bodyLimitBytes} bytes).`);
      },
    });
    // bodyLimit asks for the body stream, which makes the Node adapter build a whole web Request
    // (and a stream) per request. A GET or HEAD has no body, and a body with a Content-Length is
    // judged by that header alone, as bodyLimit itself does (Node's parser has checked the
    // framing); only a chunked body is counted while it is read.
    app.use('*', (c, next) => {
      if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
      const length = c.req.header('content-length');
      if (length === undefined || c.req.header('transfer-encoding') !== undefined) return limitBody(c, next);
      if (Number.parseInt(length, 10) > config.server.bodyLimitBytes) {
        throw new HttpError(413, `Request body is too large (limit ${config.server.bodyLimitBytes} bytes).`);
      }
      return next();
    });
    // Every body this API takes is JSON; a form or text body would otherwise read as "no fields".
    app.use('*', async (c, next) => {
      const type = c.req.header('content-type');
      if (type && c.req.method !== 'GET' && c.req.method !== 'HEAD' && !JSON_TYPE.test(type)) {
        throw new HttpError(415, `Content-Type must be application/json (got ${type.split(';')[0]!.trim().slice(0, 100)}).`);
      }
      await next();
    });
    app.use('*', resolveTenant({ multitenancy: () => config.multitenancy.enabled, cache: tenants, driver: () => driver }));
    // The document is built from `app`'s route table on first request, when every route is mounted.
    app.route('/', apiDocsRoutes(app, [{ tag: 'kernel', routes: kernelRouteDocs }, ...plugins.map((p) => ({ tag: p.name, routes: p.api ?? {} }))]));
    for (const { instance } of instances) if (instance.publicRoutes) app.route('/', instance.publicRoutes);
    // Unknown routes answer 404, and a known path with a method it does not have 405 with `Allow`,
    // both before authentication, so probing paths or methods never counts as a failure.
    const methodsOf = allowedMethods(() => app.routes);
    app.use('*', async (c, next) => {
      if (!matchedRoutes(c).some((route) => route.method !== 'ALL')) {
        const allowed = methodsOf(c.req.path);
        if (allowed.length === 0) throw notFound('Not Found');
        throw new HttpError(405, 'Method Not Allowed', { headers: { Allow: allowed.join(', ') } });
      }
      await next();
    });
    app.use('*', describeMiddleware(bearerAuth({ identity, throttle: () => throttle, policy, clientIp }), { authenticates: true, errors: [401, 429, 503] }));
    app.use('/admin/*', describeMiddleware(requireAdmin, { errors: [403], note: 'Needs an admin-role token.' }));
    app.post('/admin/config/reload', reloadHandler(reload));
    for (const { instance } of instances) if (instance.routes) app.route('/', instance.routes);
    app.notFound((c) => c.json({ error: 'Not Found' }, 404));
    // A dependency outage is logged once (and counted), not once per failed request.
    const outages = createOutageLog(log, { probes: { Database: () => driver.ping(), Redis: () => throttle.ping() } });
    closers.push(async () => outages.close());
    app.onError((error, c) => {
      outages.note(error);
      return serializeError(error, c);
    });

    let closed = false;
    return {
      app,
      fetch: (request, env) => app.fetch(request, env),
      config: () => config,
      driver: () => driver,
      identity,
      events,
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
          await instance.close?.().catch((error) => log.error('Plugin failed to close', { plugin: name, error }));
        }
        await retirement.settled();
        for (const close of closers.reverse()) await close().catch((error) => log.error('Close failed', { error }));
        if (ownsDriver) await driver.close();
      },
    };
  } catch (error) {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    if (ownsDriver) await driver.close().catch(() => undefined);
    throw error;
  }
}

/** The route template of the handler that answered (`/collections/:id`), never the raw path. */
function routeTemplate(c: Context<KernelEnv>): string {
  const routes = matchedRoutes(c);
  for (let i = routes.length - 1; i >= 0; i--) if (routes[i]!.method !== 'ALL') return routes[i]!.path;
  return UNMATCHED_ROUTE;
}

interface NodeBindings {
  outgoing?: { once(event: 'close', listener: () => void): void; socket?: { bytesWritten: number } | null; closed?: boolean; destroyed?: boolean };
}

/**
 * Request metrics and the access log: one `info` line per request with the method, route template,
 * status, duration, bytes, request id, tenant and user id; never the query string, a header or a
 * body. On Node the line is written when the response has been sent, so a stream's duration and
 * bytes (status line and headers included) are its whole life; elsewhere when the headers are ready,
 * with the Content-Length when there is one.
 */
function observeRequests(log: Logger, metrics: HubMetrics, accessLog: () => boolean, recordMetrics: () => boolean) {
  return async (c: Context<KernelEnv>, next: () => Promise<void>) => {
    const started = performance.now();
    const outgoing = (c.env as NodeBindings | undefined)?.outgoing;
    const bytesBefore = outgoing?.socket?.bytesWritten;
    try {
      await next();
    } finally {
      const logging = accessLog();
      const measuring = recordMetrics();
      const route = logging || measuring ? routeTemplate(c) : '';
      const status = c.res.status;
      if (measuring) {
        metrics.observeRequest(c.req.method, route, status, (performance.now() - started) / 1000);
        if (status === 429) metrics.throttleBlocked();
      }
      if (logging) {
        const fields = (bytes: number | undefined) => ({
          method: c.req.method,
          route,
          ...(route === UNMATCHED_ROUTE ? { path: c.req.path.slice(0, 200) } : {}),
          status,
          durationMs: Math.round((performance.now() - started) * 100) / 100,
          ...(bytes === undefined ? {} : { bytes }),
          requestId: c.var.requestId,
          ...(c.var.tenant ? { tenant: c.var.tenant.id } : {}),
          ...(c.var.auth ? { userId: c.var.auth.user.id } : {}),
        });
        if (outgoing && bytesBefore !== undefined) {
          const socket = outgoing.socket;
          const write = () => log.info('request', fields(socket ? socket.bytesWritten - bytesBefore : undefined));
          // A client that left while the handler ran has closed the response already: log now.
          if (outgoing.closed || outgoing.destroyed) write();
          else outgoing.once('close', write);
        } else {
          const length = c.res.headers.get('content-length');
          log.info('request', fields(length === null ? undefined : Number(length)));
        }
      }
    }
  };
}
