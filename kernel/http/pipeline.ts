/**
 * The request pipeline, in this order: retirement of swapped connections, the edge (edge.ts:
 * request id and logger, access log and metrics, URL limit, a one-time warning about proxy headers
 * the hub does not read, fixed answers such as `/health`), probes and `/metrics` (before anything that needs the database; `/metrics` only
 * to loopback clients unless it has a token or is public), body size and type, tenant resolution,
 * the API document, public routes, 404/405 before authentication, throttle and bearer auth, the
 * admin guard, plugin routes, and one error serializer. `kernel/hub.ts` composes the hub and hands
 * this what it built; `client-address.ts` says who the client is.
 */
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import type { HubConfig } from '../config/load.ts';
import type { ReloadOutcome } from '../config/reload.ts';
import type { AuditScope } from '../audit.ts';
import { requireOperator } from './operator.ts';
import { HttpError, notFound, unauthorized } from '../errors.ts';
import type { Identity } from '../identity/identity.ts';
import { writes, type Logger } from '../log.ts';
import { metricsTokenMatches, type HubMetrics } from '../metrics.ts';
import { createOutageLog } from '../outage.ts';
import type { KernelEnv, PluginDefinition, PluginInstance } from '../plugin.ts';
import { allowedMethods } from '../registry.ts';
import type { Migration, StorageDriver } from '../storage/contract.ts';
import type { ThrottleStore } from '../throttle/contract.ts';
import { observeRequests } from './access-log.ts';
import { apiDocsRoutes, kernelRouteDocs } from './api-docs.ts';
import { frontPageDocs, frontPageRoutes } from './front-page.ts';
import { bearerAuth, requireAdmin, type AuthPolicy } from './auth.ts';
import { knownRefusals } from './blocked.ts';
import { configViewDocs, configViewRoutes } from './config-view.ts';
import { limitBodySize, requireJsonBody } from './body-checks.ts';
import { fromLoopback, warnUntrustedProxy } from './client-address.ts';
import { edge, fixedAnswers, type Edge } from './edge.ts';
import { describeMiddleware } from './openapi-routes.ts';
import type { CacheStats } from '../cache.ts';
import type { InProcessCaller } from './in-process.ts';
import type { Counts } from './counts.ts';
import { overviewDocs, overviewRoutes } from './overview.ts';
import { healthzHandler, readyzHandler } from './probes.ts';
import { serializeError } from './serialize-error.ts';
import { resolveTenant, type TenantCache } from './tenant.ts';

/** What the pipeline reads; the getters follow a config reload that swaps connections. */
export interface PipelineDeps {
  config: () => HubConfig;
  log: Logger;
  metrics: HubMetrics;
  identity: Identity;
  driver: () => StorageDriver;
  throttle: () => ThrottleStore;
  policy: () => AuthPolicy;
  clientIp: (c: Context<KernelEnv>) => string;
  tenants: TenantCache;
  migrations: readonly Migration[];
  shuttingDown: () => boolean;
  /** Holds a swapped-out connection open until the requests that started before the swap end. */
  retirement: MiddlewareHandler<KernelEnv>;
  /** `scope`: who asked (an admin over HTTP); none for a signal. */
  reload: (scope?: AuditScope) => Promise<ReloadOutcome>;
  plugins: readonly PluginDefinition<any>[];
  instances: readonly { name: string; instance: PluginInstance<any> }[];
  /** Who a request the hub runs in process acts as (http/in-process.ts). */
  callerOf: (request: Request) => InProcessCaller | undefined;
  cacheStats: () => CacheStats;
  /** What `GET /admin/overview` counts. */
  counts: Counts;
}

/** The hub's Hono app; `close` stops the outage log's probes. */
export function createPipeline(deps: PipelineDeps): {
  app: Hono<KernelEnv>;
  /** Fixed answers for a runtime that writes them itself (edge.ts). */
  answerFixed: Edge['answerFixed'];
  close(): Promise<void>;
} {
  const { config } = deps;
  const app = new Hono<KernelEnv>();
  app.use('*', deps.retirement);
  // A dependency outage is logged once (and counted), not once per failed request.
  const outages = createOutageLog(deps.log, {
    probes: { Database: () => deps.driver().ping(), Redis: () => deps.throttle().ping() },
  });
  const onError = (error: Error, c: Context<KernelEnv>) => {
    outages.note(error);
    return serializeError(error, c);
  };
  // What a runtime may answer itself of a client bearer auth refused for a block (blocked.ts).
  const refusals = knownRefusals({
    throttle: deps.throttle,
    trustProxy: () => config().server.trustProxy,
    tenants: deps.tenants,
  });
  // Request id, logger and audit scope, metrics and the access log, the URL limit and fixed
  // answers, in one middleware (edge.ts). Below `info` the access line would be dropped: then its
  // fields are not even gathered.
  const edged = edge({
    log: deps.log,
    clientIp: deps.clientIp,
    observe: observeRequests(
      deps.log,
      deps.metrics,
      (level) => config().logging.accessLog && writes(config().logging.level, level),
      () => config().metrics.enabled,
    ),
    warnProxy: warnUntrustedProxy(deps.log, config),
    fixed: () => fixedAnswers(app.routes),
    refusal: refusals.refusal,
    onError,
  });
  app.use('*', edged.middleware);
  mountProbes(app, deps);
  app.use(
    '*',
    limitBodySize(() => config().server.bodyLimitBytes),
  );
  // Pages with HTML forms (the console) before the JSON-only check; they pick their own tenant.
  for (const { instance } of deps.instances) if (instance.pages) app.route('/', instance.pages);
  app.use('*', requireJsonBody);
  app.use(
    '*',
    resolveTenant({
      multitenancy: () => config().multitenancy.enabled,
      cache: deps.tenants,
      driver: deps.driver,
    }),
  );
  // The document is built from `app`'s route table on first request, when every route is mounted.
  app.route(
    '/',
    apiDocsRoutes(app, [
      {
        tag: 'kernel',
        routes: { ...frontPageDocs, ...kernelRouteDocs, ...overviewDocs, ...configViewDocs },
      },
      ...deps.plugins.map((p) => ({ tag: p.name, routes: p.api ?? {} })),
    ]),
  );
  app.route('/', frontPageRoutes(config));
  for (const { instance } of deps.instances)
    if (instance.publicRoutes) app.route('/', instance.publicRoutes);
  mountAuthentication(app, deps, refusals.learn);
  mountKernelAdmin(app, deps);
  for (const { instance } of deps.instances) if (instance.routes) app.route('/', instance.routes);
  app.notFound((c) => serializeError(notFound(), c));
  app.onError(onError);
  return { app, answerFixed: edged.answerFixed, close: async () => outages.close() };
}

/**
 * Probes and metrics answer before the tenant lookup, body checks and authentication: they must
 * work while the database is down, and are never throttled or counted as failures.
 */
function mountProbes(app: Hono<KernelEnv>, deps: PipelineDeps): void {
  const { config } = deps;
  app.get('/healthz', healthzHandler());
  app.get(
    '/readyz',
    readyzHandler({
      driver: deps.driver,
      throttle: deps.throttle,
      redisConfigured: () => config().redis !== undefined,
      migrations: deps.migrations,
      shuttingDown: deps.shuttingDown,
    }),
  );
  app.get('/metrics', async (c) => {
    const settings = config().metrics;
    if (!settings.enabled) throw notFound('Not Found');
    if (settings.token !== undefined) {
      // With a token, the token decides, from any address.
      if (!metricsTokenMatches(c.req.header('authorization'), settings.token)) {
        throw unauthorized('Unauthorized: /metrics needs the metrics token (metrics.token).');
      }
    } else if (!settings.public && !fromLoopback(c, config, deps.clientIp)) {
      throw new HttpError(
        403,
        'Forbidden: without metrics.token, /metrics answers only to clients on this host; set metrics.token to scrape from elsewhere (or metrics.public: true).',
      );
    }
    return c.body(await deps.metrics.render(), 200, {
      'Content-Type': deps.metrics.contentType,
      'Cache-Control': 'no-store',
    });
  });
}

/**
 * Unknown routes answer 404, and a known path with a method it does not have 405 with `Allow`, both
 * before authentication, so probing paths or methods never counts as a failure; then bearer auth
 * (`learn`: told of a request refused for its key's block), and the admin guard on `/admin/*`.
 */
function mountAuthentication(
  app: Hono<KernelEnv>,
  deps: PipelineDeps,
  learn: (c: Context<KernelEnv>) => void,
): void {
  // One middleware with authentication: each link of the chain costs every request a promise.
  const methodsOf = allowedMethods(() => app.routes);
  const authenticate = bearerAuth({
    identity: deps.identity,
    throttle: deps.throttle,
    policy: deps.policy,
    clientIp: deps.clientIp,
    callerOf: deps.callerOf,
    refusedForBlock: learn,
  });
  app.use(
    '*',
    describeMiddleware<MiddlewareHandler<KernelEnv>>(
      (c, next) => {
        if (!matchedRoutes(c).some((route) => route.method !== 'ALL')) {
          const allowed = methodsOf(c.req.path);
          if (allowed.length === 0) throw notFound('Not Found');
          throw new HttpError(405, 'Method Not Allowed', {
            headers: { Allow: allowed.join(', ') },
          });
        }
        return authenticate(c, next);
      },
      { authenticates: true, errors: [401, 429, 503] },
    ),
  );
  app.use(
    '/admin/*',
    describeMiddleware(requireAdmin, { errors: [403], note: 'Needs an admin-role token.' }),
  );
}

/** The kernel's own admin routes: config reload and view, and the overview. */
function mountKernelAdmin(app: Hono<KernelEnv>, deps: PipelineDeps): void {
  const { config } = deps;
  // The file is the whole hub's: with multitenancy only the default tenant's administrators reload it.
  app.post('/admin/config/reload', requireOperator, async (c) => {
    const outcome = await deps.reload(c.get('auditScope'));
    // A file that fails validation changes nothing; the spec names the message `fatalError` too.
    if (!outcome.ok) {
      const { fatalError } = outcome;
      throw new HttpError(400, fatalError, { extra: { fatalError, sections: [] } });
    }
    return c.json({ sections: outcome.sections });
  });
  const sections = Object.fromEntries(
    deps.plugins.flatMap((p) => (p.config ? [[p.config.section, p.config.schema]] : [])),
  );
  app.route('/', configViewRoutes(config, sections));
  app.route(
    '/',
    overviewRoutes({
      driver: deps.driver,
      throttle: deps.throttle,
      cacheStats: deps.cacheStats,
      counts: deps.counts,
    }),
  );
}
