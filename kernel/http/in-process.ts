/**
 * Requests a plugin runs through the hub's own pipeline, in process, as a signed-in user: the web
 * console renders pages from the JSON the API answers, so every rule, tenant and access check of
 * the API applies to it by construction, and nothing is written twice.
 *
 * Who such a request acts as is kept beside the `Request` object itself, in a WeakMap only this
 * module writes. A request from the network is a new object the runtime made, never in the map,
 * so no header, cookie or body can make one count as in process. Bearer authentication
 * (`auth.ts`) still checks the token on every in-process request through the same cached lookup
 * it uses for a bearer header, so a revoked or expired token, or a deleted user, fails at once.
 */

/** What requests run through: the hub's app (its `fetch`). */
interface App {
  fetch(request: Request): Response | Promise<Response>;
}

/** Whom an in-process request acts as, and for whom. */
export interface InProcessCaller {
  /**
   * The sha256 of the token to act with (as stored in `api_tokens.tokenHash`); null: none, so the
   * route's own rules decide (a public route, or an `Authorization` header the request carries).
   */
  tokenHash: string | null;
  /** The address of the client the plugin serves: the throttle and the audit log see it. */
  ip: string;
}

/** What plugins get: `fetch` runs a request through the whole pipeline as `caller`. */
export interface InProcessApi {
  /**
   * Answers `request` as the hub would answer it from the network, acting as `caller`. A body
   * must be given with its `Content-Length` (see {@link inProcessRequest}): the body-size check
   * replaces a request whose length it has to count, and the replacement is not marked.
   */
  fetch(request: Request, caller: InProcessCaller): Promise<Response>;
}

/** The kernel's side: the API plugins get, and the look-up the pipeline makes. */
export interface InProcess extends InProcessApi {
  /** The caller of a request made through {@link InProcessApi.fetch}; undefined for others. */
  callerOf(request: Request): InProcessCaller | undefined;
  /** Called once the pipeline exists (plugins are set up before it). */
  bind(app: App): void;
}

export function createInProcess(): InProcess {
  const callers = new WeakMap<Request, InProcessCaller>();
  let app: App | null = null;
  return {
    callerOf: (request) => callers.get(request),
    bind(bound) {
      app = bound;
    },
    async fetch(request, caller) {
      if (!app) throw new Error('In-process requests need the pipeline: call them from a route.');
      callers.set(request, Object.freeze({ ...caller }));
      // No runtime bindings: the access log then writes its line when the answer is ready.
      return app.fetch(request);
    },
  };
}

/**
 * A request for {@link InProcessApi.fetch}: `body` is sent as JSON with its length. `requestId`
 * names the request that caused it (the access log and the audit log then tie the two together),
 * `tenant` picks the tenant as `X-Hub-Tenant` does.
 */
export function inProcessRequest(
  method: string,
  path: string,
  options: { body?: unknown; tenant: string; requestId?: string; headers?: Record<string, string> },
): Request {
  const headers: Record<string, string> = { ...options.headers, 'x-hub-tenant': options.tenant };
  if (options.requestId) headers['x-request-id'] = options.requestId;
  let body: Uint8Array<ArrayBuffer> | undefined;
  if (options.body !== undefined) {
    body = new TextEncoder().encode(JSON.stringify(options.body));
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(body.byteLength);
  }
  // The host is never read: routes see the path, and links are built from server.publicUrl.
  return new Request(new URL(path, 'http://in-process.invalid'), {
    method,
    headers,
    ...(body ? { body } : {}),
  });
}
