/**
 * The edge: what every request passes first, in one middleware rather than a chain of small ones
 * (each link of Hono's chain costs a closure, a promise and a turn of the microtask queue, which on
 * the cheapest requests was a large part of their cost). In order: the request id (`X-Request-Id`
 * as sent when it is a plain token of at most 255 characters, else a new one), the request's
 * logger and audit scope, metrics and the access log around everything after it, the URL limit
 * (414), and a one-time warning about proxy headers the hub does not read. Then a fixed answer
 * ({@link fixedAnswer}, e.g. `GET /health`) is written at once, without the rest of the pipeline.
 */
import type { Context, Handler, MiddlewareHandler } from 'hono';
import { COMPOSED_HANDLER } from 'hono/utils/constants';
import type { AuditActor, AuditScope } from '../audit.ts';
import { HttpError } from '../errors.ts';
import type { Logger, LogFields } from '../log.ts';
import type { KernelEnv } from '../plugin.ts';
import type { ObserveFixed, RuntimeBindings } from './access-log.ts';
import type { RuntimeAnswer } from './blocked.ts';
import type { HeaderOf } from './client-address.ts';
import { newRequestId } from './request-id.ts';
import { MAX_URL_BYTES, URL_TOO_LONG_MESSAGE } from './limits.ts';
import { describeMiddleware } from './openapi-routes.ts';

const FIXED = Symbol('workspace-hub.fixed-answer');

/** A fixed answer's parts, serialized once; its route is its path. */
type Fixed = RuntimeAnswer & { status: 200 };

/**
 * A GET handler whose answer never changes while the process runs (`/health`): its JSON is
 * serialized once, and the edge writes it as soon as the request arrives, skipping tenant
 * resolution, body checks and the rest of the chain (unless the request names a tenant, whose
 * header is then checked as on any route). Registered as an ordinary route, so HEAD,
 * the API document and the 404/405 rules see it as before.
 */
export function fixedAnswer(value: unknown): Handler<KernelEnv> {
  const body = JSON.stringify(value);
  const fixed: Omit<Fixed, 'route'> = {
    status: 200,
    body,
    bytes: new TextEncoder().encode(body).byteLength,
    headers: { 'Content-Type': 'application/json' },
  };
  // Reached only where the edge did not answer (HEAD, or a request naming a tenant).
  const handler: Handler<KernelEnv> = (c) => c.body(fixed.body, 200, fixed.headers);
  return Object.assign(handler, { [FIXED]: fixed });
}

/** The fixed answers among `routes` (GET, static paths), by path. */
export function fixedAnswers(
  routes: readonly { method: string; path: string; handler: Function }[],
): Map<string, Fixed> {
  type Marked = { [FIXED]?: Omit<Fixed, 'route'> };
  const found = new Map<string, Fixed>();
  for (const route of routes) {
    // Hono wraps a sub-app's handler when the sub-app has its own error handler.
    const handler = route.handler as Marked & { [COMPOSED_HANDLER]?: Marked };
    const fixed = handler[FIXED] ?? handler[COMPOSED_HANDLER]?.[FIXED];
    if (fixed && route.method === 'GET' && !/[:*]/.test(route.path))
      found.set(route.path, { ...fixed, route: route.path });
  }
  return found;
}

const VALID_ID = /^[\w\-=]{1,255}$/;

/**
 * The request's logger: a child of the hub's naming the request id, made only when the request
 * writes a line (most never do).
 */
class RequestLogger implements Logger {
  #log: Logger | undefined;
  readonly #parent: Logger;
  readonly #requestId: string;
  constructor(parent: Logger, requestId: string) {
    this.#parent = parent;
    this.#requestId = requestId;
  }
  get #child(): Logger {
    return (this.#log ??= this.#parent.child({ requestId: this.#requestId }));
  }
  debug(message: string, fields?: LogFields) {
    this.#child.debug(message, fields);
  }
  info(message: string, fields?: LogFields) {
    this.#child.info(message, fields);
  }
  warn(message: string, fields?: LogFields) {
    this.#child.warn(message, fields);
  }
  error(message: string, fields?: LogFields) {
    this.#child.error(message, fields);
  }
  child(fields: LogFields): Logger {
    return this.#child.child(fields);
  }
}

/**
 * Who and where for what the request writes (audit.ts): the address is looked up only when
 * something is recorded, the user when the record is made (authentication comes later).
 */
class RequestScope implements AuditScope {
  readonly requestId: string;
  #ip: string | null | undefined;
  readonly #c: Context<KernelEnv>;
  readonly #clientIp: (c: Context<KernelEnv>) => string;
  constructor(
    requestId: string,
    c: Context<KernelEnv>,
    clientIp: (c: Context<KernelEnv>) => string,
  ) {
    this.requestId = requestId;
    this.#c = c;
    this.#clientIp = clientIp;
  }
  get ip(): string | null {
    return (this.#ip ??= this.#clientIp(this.#c));
  }
  actor(): AuditActor | null {
    const user = this.#c.get('auth')?.user;
    return user ? { id: user.id, name: user.name } : null;
  }
}

/** The request target of an absolute URL: everything from the path on. */
function requestTargetLength(url: string): number {
  const path = url.indexOf('/', url.indexOf('//') + 2);
  return path < 0 ? 1 : url.length - path;
}

/** What a runtime writes itself for a fixed answer (see {@link Edge.answerFixed}). */
export interface FixedReply {
  status: number;
  body: string;
  /** Its headers, `Content-Length` and the request's `X-Request-Id` among them. */
  headers: Record<string, string | number>;
  /** Call once the body is written: counts the request and writes its access line. */
  written(): void;
}

export interface EdgeDeps {
  log: Logger;
  clientIp: (c: Context<KernelEnv>) => string;
  /** Metrics and the access log (access-log.ts): around the rest, or for a fixed answer. */
  observe: {
    observe: (c: Context<KernelEnv>, next: () => Promise<void>) => Promise<void>;
    fixed: ObserveFixed;
  };
  /** The one-time proxy warning (client-address.ts); called until it returns true. */
  warnProxy: (header: HeaderOf, peer: () => string) => boolean;
  /** The fixed answers of the finished app, read on the first request. */
  fixed: () => Map<string, Fixed>;
  /** A GET the app would refuse for a known block (blocked.ts), for a runtime to answer. */
  refusal?: (path: string, header: HeaderOf, peer: () => string) => RuntimeAnswer | undefined;
  /** The app's error handler, for an answer the edge itself refuses (414). */
  onError: (error: Error, c: Context<KernelEnv>) => Response | Promise<Response>;
}

export interface Edge {
  middleware: MiddlewareHandler<KernelEnv>;
  /**
   * For a runtime that can write an answer straight to its socket (runtime/node.ts): the fixed
   * answer to a request, when the edge would write one and the rest of the pipeline would not
   * run, or the app's refusal of a client it knows is blocked (blocked.ts), else undefined (the
   * request then goes through the app). The request id, the proxy warning, the metrics and the
   * access line are the edge's, as for a request through the app.
   * `target`: the request target as sent (`/health?x=1`), which must be no absolute URL.
   */
  answerFixed(
    method: string,
    target: string,
    header: HeaderOf,
    peer: () => string,
  ): FixedReply | undefined;
}

/** `X-Request-Id` on the response: set by the runtime where it can (see RuntimeBindings). */
function tagRequestId(c: Context<KernelEnv>, requestId: string): void {
  const runtime = c.env as RuntimeBindings | undefined;
  if (runtime?.presetHeader) runtime.presetHeader(runtime, 'X-Request-Id', requestId);
  else c.header('X-Request-Id', requestId);
}

/** The part of a request target before its query. */
const pathOf = (target: string) => {
  const query = target.indexOf('?');
  return query < 0 ? target : target.slice(0, query);
};

export function edge(deps: EdgeDeps): Edge {
  let fixed: Map<string, Fixed> | undefined;
  let warned = false;
  /**
   * The fixed answer for a GET of `path`, unless the request names a tenant: it goes the whole
   * way then, so its header is checked (400, 404) as on every route.
   */
  const fixedFor = (method: string, path: string, header: HeaderOf) =>
    method === 'GET' &&
    header('x-hub-tenant') === undefined &&
    header('x-harbor-tenant') === undefined
      ? (fixed ??= deps.fixed()).get(path)
      : undefined;
  const requestIdOf = (sent: string | undefined) =>
    sent !== undefined && VALID_ID.test(sent) ? sent : newRequestId();

  const middleware: MiddlewareHandler<KernelEnv> = (c, next) => {
    const header: HeaderOf = (name) => c.req.header(name);
    const requestId = requestIdOf(c.req.header('x-request-id'));
    c.set('requestId', requestId);
    c.set('log', new RequestLogger(deps.log, requestId));
    c.set('auditScope', new RequestScope(requestId, c, deps.clientIp));
    return deps.observe.observe(c, async () => {
      if (requestTargetLength(c.req.url) > MAX_URL_BYTES) {
        tagRequestId(c, requestId);
        c.res = await deps.onError(new HttpError(414, URL_TOO_LONG_MESSAGE), c);
        return;
      }
      if (!warned) warned = deps.warnProxy(header, () => deps.clientIp(c));
      const answer = fixedFor(c.req.method, c.req.path, header);
      if (answer) {
        // Plain headers: the Node adapter writes them without building a Headers object.
        c.res = new Response(answer.body, {
          status: 200,
          headers: { ...answer.headers, 'X-Request-Id': requestId },
        });
        return;
      }
      tagRequestId(c, requestId);
      await next();
    });
  };

  const answerFixed: Edge['answerFixed'] = (method, target, header, peer) => {
    // A long target is refused (414) by the middleware; one with a query is matched by its path.
    if (target.length > MAX_URL_BYTES || target.charCodeAt(0) !== 47) return undefined;
    const path = pathOf(target);
    const answer =
      fixedFor(method, path, header) ??
      (method === 'GET' ? deps.refusal?.(path, header, peer) : undefined);
    if (!answer) return undefined;
    const started = performance.now();
    const requestId = requestIdOf(header('x-request-id'));
    if (!warned) warned = deps.warnProxy(header, peer);
    return {
      status: answer.status,
      body: answer.body,
      headers: { ...answer.headers, 'Content-Length': answer.bytes, 'X-Request-Id': requestId },
      written: () => deps.observe.fixed(answer, requestId, started, answer.bytes),
    };
  };

  return {
    // Anything unexpected is logged with the request's logger and answered 500; a long URL 414.
    middleware: describeMiddleware(middleware, { errors: [414, 500] }),
    answerFixed,
  };
}
