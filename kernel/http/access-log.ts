/**
 * Request metrics and the access log: one `info` line per request with the method, route template,
 * status, duration, bytes, request id, tenant and user id; never the query string, a header or a
 * body. Where the runtime can tell when a response has left ({@link RuntimeBindings.responseSent},
 * provided by `runtime/node.ts`), the line is written then, so a stream's duration and bytes (status
 * line and headers included) are its whole life; elsewhere when the headers are ready, with the
 * Content-Length when there is one.
 */
import type { Context } from 'hono';
import { matchedRoutes } from 'hono/route';
import type { Logger } from '../log.ts';
import { UNMATCHED_ROUTE, type HubMetrics } from '../metrics.ts';
import type { KernelEnv } from '../plugin.ts';

/**
 * Called with the request's bindings when it arrives; returns undefined when it cannot tell, else
 * a function that calls `sent` once the response has been sent, with the bytes it took on the wire.
 */
export type ResponseSent = (
  bindings: unknown,
) => ((sent: (bytes: number | undefined) => void) => void) | undefined;

/** What a runtime may add to the bindings (Hono's `c.env`) it passes with each request. */
export interface RuntimeBindings {
  responseSent?: ResponseSent;
}

/** The route template of the handler that answered (`/collections/:id`), never the raw path. */
function routeTemplate(c: Context<KernelEnv>): string {
  const routes = matchedRoutes(c);
  for (let i = routes.length - 1; i >= 0; i--)
    if (routes[i]!.method !== 'ALL') return routes[i]!.path;
  return UNMATCHED_ROUTE;
}

export function observeRequests(
  log: Logger,
  metrics: HubMetrics,
  accessLog: () => boolean,
  recordMetrics: () => boolean,
) {
  return async (c: Context<KernelEnv>, next: () => Promise<void>) => {
    const started = performance.now();
    const bindings = c.env as RuntimeBindings | undefined;
    const whenSent = bindings?.responseSent?.(bindings);
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
        if (whenSent) whenSent((bytes) => log.info('request', fields(bytes)));
        else {
          const length = c.res.headers.get('content-length');
          log.info('request', fields(length === null ? undefined : Number(length)));
        }
      }
    }
  };
}
