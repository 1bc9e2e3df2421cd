/**
 * Request metrics and the access log: one line per request with the method, route template,
 * status, duration, the body's bytes, request id, tenant and user id; never the query string, a
 * header or a body. Lines are `info`, except for the probes ({@link PROBE_ROUTES}), which an
 * orchestrator calls every few seconds: those are `debug`. Where the runtime can tell when a
 * response has left ({@link RuntimeBindings.responseSent}, provided by `runtime/node.ts` and
 * `runtime/deno.ts`), the line is written then, so a stream's duration and bytes are its whole
 * life; elsewhere when the headers are ready, with the Content-Length when there is one.
 */
import type { Context } from 'hono';
import { matchedRoutes } from 'hono/route';
import type { LogFields, Logger } from '../log.ts';
import { UNMATCHED_ROUTE, type HubMetrics } from '../metrics.ts';
import type { KernelEnv } from '../plugin.ts';

/** The routes of the probes, logged at `debug` so they do not drown the `info` log. */
export const PROBE_ROUTES: ReadonlySet<string> = new Set(['/health', '/healthz', '/readyz']);

/**
 * Called with the request's bindings when it arrives; returns undefined when it cannot tell, else
 * a function that calls `sent` once the response has been sent, with the bytes of its body (status
 * line, headers and transfer framing left out).
 */
export type ResponseSent = (
  bindings: unknown,
) => ((sent: (bytes: number | undefined) => void) => void) | undefined;

/** What a runtime may add to the bindings (Hono's `c.env`) it passes with each request. */
export interface RuntimeBindings {
  responseSent?: ResponseSent;
  /**
   * Sets a header on whatever response the runtime writes for the request (Node: on its
   * `ServerResponse`), so the response the app builds need not carry it: a Hono response with more
   * than one header is built on a `Headers` object, which the Node adapter then converts back.
   */
  presetHeader?: (bindings: unknown, name: string, value: string) => void;
}

/** The route template of the handler that answered (`/collections/:id`), never the raw path. */
export function routeTemplate(c: Context<KernelEnv>): string {
  const routes = matchedRoutes(c);
  for (let i = routes.length - 1; i >= 0; i--)
    if (routes[i]!.method !== 'ALL') return routes[i]!.path;
  return UNMATCHED_ROUTE;
}

/**
 * An answer to a GET the runtime wrote itself (a fixed answer or a known refusal, `edge.ts`):
 * counted and logged as any request.
 */
export type ObserveFixed = (
  answer: { route: string; status: number; tenant?: string },
  requestId: string,
  started: number,
  bytes: number,
) => void;

export function observeRequests(
  log: Logger,
  metrics: HubMetrics,
  /** Whether the access line of a request logged at this level will be written. */
  accessLog: (level: 'info' | 'debug') => boolean,
  recordMetrics: () => boolean,
) {
  const count = (method: string, route: string, status: number, started: number) => {
    metrics.observeRequest(method, route, status, (performance.now() - started) / 1000);
    if (status === 429) metrics.throttleBlocked();
  };
  const write = (route: string, fields: LogFields) =>
    PROBE_ROUTES.has(route) ? log.debug('request', fields) : log.info('request', fields);
  const durationMs = (started: number) => Math.round((performance.now() - started) * 100) / 100;

  const observe = async (c: Context<KernelEnv>, next: () => Promise<void>) => {
    const started = performance.now();
    // Decided as the request arrives: only a request that will be logged has its response
    // watched (the watch wraps the response's write and end and waits for its close).
    const logging = accessLog('info');
    const bindings = logging ? (c.env as RuntimeBindings | undefined) : undefined;
    const whenSent = bindings?.responseSent?.(bindings);
    try {
      await next();
    } finally {
      const measuring = recordMetrics();
      const route = logging || measuring ? routeTemplate(c) : '';
      const status = c.res.status;
      if (measuring) count(c.req.method, route, status, started);
      if (logging) {
        const fields = (bytes: number | undefined) => ({
          method: c.req.method,
          route,
          ...(route === UNMATCHED_ROUTE ? { path: c.req.path.slice(0, 200) } : {}),
          status,
          durationMs: durationMs(started),
          ...(bytes === undefined ? {} : { bytes }),
          requestId: c.get('requestId'),
          ...(c.get('tenant') ? { tenant: c.get('tenant').id } : {}),
          ...(c.get('auth') ? { userId: c.get('auth').user.id } : {}),
        });
        if (whenSent) whenSent((bytes) => write(route, fields(bytes)));
        else {
          const length = c.res.headers.get('content-length');
          write(route, fields(length === null ? undefined : Number(length)));
        }
      }
    }
  };

  /** Once its bytes are written: the same count and line as {@link observe} gives a GET. */
  const fixed: ObserveFixed = ({ route, status, tenant }, requestId, started, bytes) => {
    if (recordMetrics()) count('GET', route, status, started);
    if (accessLog(PROBE_ROUTES.has(route) ? 'debug' : 'info'))
      write(route, {
        method: 'GET',
        route,
        status,
        durationMs: durationMs(started),
        bytes,
        requestId,
        ...(tenant === undefined ? {} : { tenant }),
      });
  };

  return { observe, fixed };
}
