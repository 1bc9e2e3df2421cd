/**
 * The request pipeline, in the order DESIGN.md gives: retirement of swapped connections, request
 * id and logger, access log and metrics, URL limit, a one-time warning about proxy headers the hub
 * does not read, probes and `/metrics` (before anything that needs the database; `/metrics` only
 * to loopback clients unless it has a token or is public), body size and type, tenant resolution,
 * the API document, public routes, 404/405 before authentication, throttle and bearer auth, the
 * admin guard, plugin routes, and one error serializer. `kernel/hub.ts` composes the hub and hands
 * this what it built; `client-address.ts` says who the client is.
 */
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { requestId } from 'hono/request-id';
import { matchedRoutes } from 'hono/route';
import type { HubConfig } from '../config/load.ts';
import { reloadHandler, type ReloadOutcome } from '../config/reload.ts';
import { HttpError, notFound } from '../errors.ts';
import type { Identity } from '../identity/identity.ts';
import { writes, type Logger } from '../log.ts';
import { metricsTokenMatches, UNMATCHED_ROUTE, type HubMetrics } from '../metrics.ts';
import { createOutageLog } from '../outage.ts';
import type { KernelEnv, PluginDefinition, PluginInstance } from '../plugin.ts';
import { allowedMethods } from '../registry.ts';
import type { Migration, StorageDriver } from '../storage/contract.ts';
import type { ThrottleStore } from '../throttle/contract.ts';
import { apiDocsRoutes, kernelRouteDocs } from './api-docs.ts';
import { bearerAuth, requireAdmin, type AuthPolicy } from './auth.ts';
import { fromLoopback, warnUntrustedProxy } from './client-address.ts';
import { urlLimit } from './limits.ts';
import { describeMiddleware } from './openapi.ts';
import { healthzHandler, readyzHandler } from './probes.ts';
import { serializeError } from './serialize-error.ts';
import { resolveTenant, type TenantCache } from './tenant.ts';

const JSON_TYPE = /^\s*application\/([\w.+-]*\+)?json\s*(;|$)/i;

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
  reload: () => Promise<ReloadOutcome>;
  plugins: readonly PluginDefinition<any>[];
  instances: readonly { name: string; instance: PluginInstance<any> }[];
}

/** The hub's Hono app; `close` stops the outage log's probes. */
export function createPipeline(deps: PipelineDeps): {
  app: Hono<KernelEnv>;
  close(): Promise<void>;
} {
  const { config } = deps;
  const app = new Hono<KernelEnv>();
  app.use('*', deps.retirement);
  app.use('*', requestId());
  app.use('*', async (c, next) => {
    c.set('log', deps.log.child({ requestId: c.var.requestId }));
    await next();
  });
  // Below `info` the access line would be dropped: then its fields are not even gathered.
  app.use(
    '*',
    observeRequests(
      deps.log,
      deps.metrics,
      () => config().logging.accessLog && writes(config().logging.level, 'info'),
      () => config().metrics.enabled,
    ),
  );
  app.use('*', urlLimit);
  app.use('*', warnUntrustedProxy(deps.log, config, deps.clientIp));
  // Probes and metrics answer before the tenant lookup, body checks and authentication: they
  // must work while the database is down, and are never throttled or counted as failures.
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
        return c.json(
          { error: 'Unauthorized: /metrics needs the metrics token (metrics.token).' },
          401,
          { 'WWW-Authenticate': 'Bearer' },
        );
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
  const limitBody = bodyLimit({
    maxSize: config().server.bodyLimitBytes,
    onError: () => {
      throw new HttpError(
        413,
        `Request body is too large (limit ${config().server.bodyLimitBytes} bytes).`,
      );
    },
  });
  // bodyLimit asks for the body stream, which makes the Node adapter build a whole web Request
  // (and a stream) per request. A GET or HEAD has no body, and a body with a Content-Length is
  // judged by that header alone, as bodyLimit itself does (Node's parser has checked the
  // framing); only a chunked body is counted while it is read.
  app.use('*', (c, next) => {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    const length = c.req.header('content-length');
    if (length === undefined || c.req.header('transfer-encoding') !== undefined)
      return limitBody(c, next);
    if (Number.parseInt(length, 10) > config().server.bodyLimitBytes) {
      throw new HttpError(
        413,
        `Request body is too large (limit ${config().server.bodyLimitBytes} bytes).`,
      );
    }
    return next();
  });
  // Every body this API takes is JSON; a form or text body would otherwise read as "no fields".
  app.use('*', async (c, next) => {
    const type = c.req.header('content-type');
    if (type && c.req.method !== 'GET' && c.req.method !== 'HEAD' && !JSON_TYPE.test(type)) {
      throw new HttpError(
        415,
        `Content-Type must be application/json (got ${type.split(';')[0]!.trim().slice(0, 100)}).`,
      );
    }
    await next();
  });
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
      { tag: 'kernel', routes: kernelRouteDocs },
      ...deps.plugins.map((p) => ({ tag: p.name, routes: p.api ?? {} })),
    ]),
  );
  for (const { instance } of deps.instances)
    if (instance.publicRoutes) app.route('/', instance.publicRoutes);
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
  app.use(
    '*',
    describeMiddleware(
      bearerAuth({
        identity: deps.identity,
        throttle: deps.throttle,
        policy: deps.policy,
        clientIp: deps.clientIp,
      }),
      { authenticates: true, errors: [401, 429, 503] },
    ),
  );
  app.use(
    '/admin/*',
    describeMiddleware(requireAdmin, { errors: [403], note: 'Needs an admin-role token.' }),
  );
  app.post('/admin/config/reload', reloadHandler(deps.reload));
  for (const { instance } of deps.instances) if (instance.routes) app.route('/', instance.routes);
  app.notFound((c) => c.json({ error: 'Not Found' }, 404));
  // A dependency outage is logged once (and counted), not once per failed request.
  const outages = createOutageLog(deps.log, {
    probes: { Database: () => deps.driver().ping(), Redis: () => deps.throttle().ping() },
  });
  app.onError((error, c) => {
    outages.note(error);
    return serializeError(error, c);
  });
  return { app, close: async () => outages.close() };
}

/** The route template of the handler that answered (`/collections/:id`), never the raw path. */
function routeTemplate(c: Context<KernelEnv>): string {
  const routes = matchedRoutes(c);
  for (let i = routes.length - 1; i >= 0; i--)
    if (routes[i]!.method !== 'ALL') return routes[i]!.path;
  return UNMATCHED_ROUTE;
}

interface NodeBindings {
  outgoing?: {
    once(event: 'close', listener: () => void): void;
    socket?: { bytesWritten: number } | null;
    closed?: boolean;
    destroyed?: boolean;
  };
}

/**
 * Request metrics and the access log: one `info` line per request with the method, route template,
 * status, duration, bytes, request id, tenant and user id; never the query string, a header or a
 * body. On Node the line is written when the response has been sent, so a stream's duration and
 * bytes (status line and headers included) are its whole life; elsewhere when the headers are ready,
 * with the Content-Length when there is one.
 */
function observeRequests(
  log: Logger,
  metrics: HubMetrics,
  accessLog: () => boolean,
  recordMetrics: () => boolean,
) {
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
          const write = () =>
            log.info('request', fields(socket ? socket.bytesWritten - bytesBefore : undefined));
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
