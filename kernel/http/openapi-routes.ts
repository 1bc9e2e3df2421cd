/**
 * The route table as the API document sees it: which operations are mounted, which middleware
 * guards each one (and so whether it needs a token and which errors the pipeline can give there),
 * and the zod schemas its `validate()` middleware checks. Middleware describes itself with
 * {@link describeMiddleware}; nothing here knows the pipeline's order or statuses.
 */
import type { Hono } from 'hono';
import { COMPOSED_HANDLER } from 'hono/utils/constants';
import type { z } from 'zod';
import { validationOf } from './validate.ts';

/** What a middleware adds to the operations it guards. */
export interface MiddlewareDoc {
  /** Routes registered after this middleware need the bearer token. */
  authenticates?: boolean;
  /** Error statuses this middleware can give on every method. */
  errors?: number[];
  /** Error statuses it can give only on methods that may carry a body (not GET or HEAD). */
  writeErrors?: number[];
  /** A sentence appended to the description of the operations it guards. */
  note?: string;
}

const MIDDLEWARE_DOC = Symbol.for('workspace-hub.middleware-doc');

/**
 * Attaches documentation to a middleware; returns the same function. A shared middleware (such as
 * `requireAdmin`) is described again by every hub created in the process, hence `configurable`.
 */
export function describeMiddleware<T extends Function>(middleware: T, doc: MiddlewareDoc): T {
  Object.defineProperty(middleware, MIDDLEWARE_DOC, {
    value: doc,
    enumerable: false,
    configurable: true,
  });
  return middleware;
}

/** Hono wraps a sub-app's handler when the sub-app has its own error handler; look through it. */
function unwrap(handler: Function): Function & Record<string | symbol, unknown> {
  const inner = (handler as unknown as Record<string, unknown>)[COMPOSED_HANDLER];
  return (typeof inner === 'function' ? inner : handler) as Function &
    Record<string | symbol, unknown>;
}

function middlewareDoc(handler: Function): MiddlewareDoc | undefined {
  return unwrap(handler)[MIDDLEWARE_DOC] as MiddlewareDoc | undefined;
}

/** `/admin/*` guards `/admin/users`; `*` and `/*` guard everything; anything else only itself. */
function guards(pattern: string, path: string): boolean {
  if (pattern === '*' || pattern === '/*') return true;
  if (pattern.endsWith('/*'))
    return path.startsWith(pattern.slice(0, -1)) || path === pattern.slice(0, -2);
  return pattern === path;
}

export interface Operation {
  method: string;
  path: string;
  authenticated: boolean;
  errors: Set<number>;
  notes: string[];
  validators: { target: string; schema: z.ZodType }[];
}

/** The statuses a middleware's doc adds to an operation of `method`. */
function errorsFor(doc: MiddlewareDoc, method: string): number[] {
  const writes = method !== 'GET' && method !== 'HEAD';
  return [...(doc.errors ?? []), ...(writes ? (doc.writeErrors ?? []) : [])];
}

/** The route table as operations: one per method and path, with what guards it. */
export function collectOperations(app: Hono<any>): Operation[] {
  const operations = new Map<string, Operation>();
  const active: { path: string; doc: MiddlewareDoc }[] = [];
  for (const route of app.routes) {
    const doc = middlewareDoc(route.handler);
    if (route.method === 'ALL') {
      if (doc) active.push({ path: route.path, doc });
      continue;
    }
    const key = `${route.method} ${route.path}`;
    let operation = operations.get(key);
    if (!operation) {
      const guarding = active.filter((m) => guards(m.path, route.path)).map((m) => m.doc);
      operation = {
        method: route.method,
        path: route.path,
        authenticated: guarding.some((d) => d.authenticates),
        errors: new Set(guarding.flatMap((d) => errorsFor(d, route.method))),
        notes: guarding.flatMap((d) => (d.note ? [d.note] : [])),
        validators: [],
      };
      operations.set(key, operation);
    }
    // Per-route middleware (validators, feature gates) appears as extra handlers of the same route.
    if (doc) {
      for (const status of errorsFor(doc, route.method)) operation.errors.add(status);
      if (doc.note) operation.notes.push(doc.note);
    }
    const validation = validationOf(unwrap(route.handler));
    if (validation) operation.validators.push(validation);
  }
  return [...operations.values()];
}

/** `/collections/:id` → `/collections/{id}`; `:id{[0-9]+}` keeps its pattern for the parameter. */
export function templatePath(path: string): {
  path: string;
  params: { name: string; pattern?: string }[];
} {
  const params: { name: string; pattern?: string }[] = [];
  const templated = path.replace(
    /:([A-Za-z0-9_]+)(\{([^}]*)\})?\??/g,
    (_all, name: string, _group, pattern?: string) => {
      params.push(pattern ? { name, pattern } : { name });
      return `{${name}}`;
    },
  );
  return { path: templated, params };
}

export function operationId(method: string, path: string): string {
  const words = path
    .split('/')
    .filter(Boolean)
    .map((part) => part.replace(/^:/, 'by-').replace(/\{.*\}$/, ''));
  return [method.toLowerCase(), ...words]
    .join('-')
    .replace(/[^A-Za-z0-9]+(.)?/g, (_all, next?: string) => (next ? next.toUpperCase() : ''));
}
