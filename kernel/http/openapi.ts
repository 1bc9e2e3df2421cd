/**
 * The OpenAPI 3.1 document, derived from what the hub actually mounts. Paths and methods come from
 * the hub's route table (`app.routes`, in registration order); request bodies, query and path
 * parameters come from the zod schemas of the `validate()` middleware on each route (converted with
 * zod's own `z.toJSONSchema`); whether a route needs a token, and which errors the pipeline can
 * give, come from the middleware registered before it. Plugins add what the route table cannot
 * know: a summary, the success responses (zod schemas) and the errors their handlers throw.
 */
import type { Hono } from 'hono';
import { z } from 'zod';
import { validationOf } from './validate.ts';

/** One success response: a zod schema of a JSON body, `null` for no body, or a non-JSON body. */
export type ResponseDoc =
  | z.ZodType
  | null
  | { description?: string; contentType: string; schema?: Record<string, unknown> };

export interface OperationDoc {
  summary: string;
  description?: string;
  /** Success responses by status. @default { 200: <any JSON> } */
  responses?: Record<number, ResponseDoc>;
  /** Error statuses the handler itself can give (the pipeline's own are added automatically). */
  errors?: number[];
  /** Query parameters read without a validator. */
  query?: z.ZodObject;
}

/** Docs of a plugin's routes, keyed by `METHOD /path` exactly as declared (e.g. `GET /collections/:id`). */
export type RouteDocs = Record<string, OperationDoc>;

/** What a middleware adds to the operations it guards. */
export interface MiddlewareDoc {
  /** Routes registered after this middleware need the bearer token. */
  authenticates?: boolean;
  /** Error statuses this middleware can give. */
  errors?: number[];
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
  const inner = (handler as unknown as Record<string, unknown>).__COMPOSED_HANDLER;
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

const STATUS_TEXT: Record<number, string> = {
  400: 'Invalid request: a field is missing or malformed, or the tenant header is not usable',
  401: 'Missing, unknown or revoked bearer token',
  402: 'The monthly LLM token allowance is used up',
  403: 'The token is valid but may not do this',
  404: 'Not found (the resource, or the tenant named by the tenant header)',
  405: 'Method not allowed on this path',
  409: 'Conflict with the current state, or with a concurrent change; try again',
  410: 'Gone: the invitation expired or was already used',
  413: 'Request body too large (`server.bodyLimitBytes`)',
  415: 'A request body that is not JSON',
  429: 'Too many failed attempts from this address; see Retry-After',
  500: 'Unexpected failure',
  502: 'The upstream provider failed',
  503: 'A dependency (database, throttle store, upstream) is unavailable, or the feature is not configured. For a dependency that is down the body is `{"error": "Service Unavailable"}` with `Retry-After`; while it stays down (its circuit breaker open) the answer is immediate',
};

/** The `Retry-After` header of the answers that carry one. */
const RETRY_AFTER: Record<number, Record<string, unknown>> = {
  429: {
    description: 'Seconds until the block ends',
    schema: { type: 'integer', minimum: 1 },
  },
  503: {
    description:
      'Seconds to wait before trying again, when a dependency (database, throttle store) is down',
    schema: { type: 'integer', minimum: 1 },
  },
};

export interface OpenApiInfo {
  title: string;
  version: string;
  description?: string;
}

interface Operation {
  method: string;
  path: string;
  authenticated: boolean;
  errors: Set<number>;
  notes: string[];
  validators: { target: string; schema: z.ZodType }[];
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
        errors: new Set(guarding.flatMap((d) => d.errors ?? [])),
        notes: guarding.flatMap((d) => (d.note ? [d.note] : [])),
        validators: [],
      };
      operations.set(key, operation);
    }
    // Per-route middleware (validators, feature gates) appears as extra handlers of the same route.
    if (doc) {
      for (const status of doc.errors ?? []) operation.errors.add(status);
      if (doc.note) operation.notes.push(doc.note);
    }
    const validation = validationOf(unwrap(route.handler));
    if (validation) operation.validators.push(validation);
  }
  return [...operations.values()];
}

/** `/collections/:id` → `/collections/{id}`; `:id{[0-9]+}` keeps its pattern for the parameter. */
function templatePath(path: string): {
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

function operationId(method: string, path: string): string {
  const words = path
    .split('/')
    .filter(Boolean)
    .map((part) => part.replace(/^:/, 'by-').replace(/\{.*\}$/, ''));
  return [method.toLowerCase(), ...words]
    .join('-')
    .replace(/[^A-Za-z0-9]+(.)?/g, (_all, next?: string) => (next ? next.toUpperCase() : ''));
}

/**
 * Converts zod schemas. Schemas named with `.meta({ id })` become `components.schemas.<id>` and are
 * referenced wherever they are used; other `$defs` and self references (recursive schemas) are
 * hoisted under a generated name, because `#` inside an OpenAPI document means the document.
 */
function schemaConverter(components: Record<string, unknown>) {
  let counter = 0;
  return (schema: z.ZodType, io: 'input' | 'output' = 'input'): Record<string, unknown> => {
    // Requests are described as clients may send them (`input`), responses as the hub sends them.
    const json = z.toJSONSchema(schema, {
      target: 'draft-2020-12',
      io,
      unrepresentable: 'any',
    }) as Record<string, unknown>;
    delete json.$schema;
    const defs = (json.$defs ?? {}) as Record<string, unknown>;
    delete json.$defs;
    if (!JSON.stringify(json).includes('"$ref":"#') && Object.keys(defs).length === 0) return json;
    const prefix = `Schema${++counter}`;
    const nameOf = (def: string) => (def.startsWith('__') ? `${prefix}${def}` : def);
    const rewrite = (value: unknown): unknown =>
      JSON.parse(JSON.stringify(value), (key, inner) => {
        if (key !== '$ref' || typeof inner !== 'string') return inner;
        if (inner === '#') return `#/components/schemas/${prefix}`;
        const def = inner.match(/^#\/\$defs\/(.+)$/);
        return def ? `#/components/schemas/${nameOf(def[1]!)}` : inner;
      });
    for (const [def, value] of Object.entries(defs)) components[nameOf(def)] = rewrite(value);
    const root = rewrite(json) as Record<string, unknown>;
    if (!JSON.stringify(json).includes('"$ref":"#"')) return root;
    components[prefix] = root;
    return { $ref: `#/components/schemas/${prefix}` };
  };
}

function parametersFrom(
  schema: Record<string, unknown>,
  location: 'query' | 'path',
): Record<string, unknown>[] {
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...rest } = property;
    return {
      name,
      in: location,
      required: location === 'path' || required.has(name),
      ...(typeof description === 'string' ? { description } : {}),
      schema: rest,
    };
  });
}

/**
 * Builds the document. `docs` are the plugins' route docs with the tag (plugin name) each belongs
 * to; a mounted route with no doc is still listed (with a summary saying so), so the document never
 * silently omits a route — the test suite insists that every route has a doc.
 */
export function buildOpenApiDocument(
  app: Hono<any>,
  docs: { tag: string; routes: RouteDocs }[],
  info: OpenApiInfo,
): Record<string, any> {
  const schemas: Record<string, unknown> = {
    Error: {
      type: 'object',
      properties: {
        error: {
          type: 'string',
          description:
            'What went wrong; validation messages name the field, e.g. `name: Invalid input`',
        },
      },
      required: ['error'],
    },
  };
  const convert = schemaConverter(schemas);
  const byKey = new Map<string, { tag: string; doc: OperationDoc }>();
  for (const { tag, routes } of docs)
    for (const [key, doc] of Object.entries(routes)) byKey.set(key, { tag, doc });

  const paths: Record<string, Record<string, unknown>> = {};
  const tags = new Set<string>();
  const usedErrors = new Set<number>();
  for (const operation of collectOperations(app)) {
    const key = `${operation.method} ${operation.path}`;
    const found = byKey.get(key);
    const doc: OperationDoc = found?.doc ?? { summary: `${key} (undocumented)` };
    const tag = found?.tag ?? 'other';
    tags.add(tag);
    const { path, params } = templatePath(operation.path);

    const parameters: Record<string, unknown>[] = [{ $ref: '#/components/parameters/Tenant' }];
    const paramValidator = operation.validators.find((v) => v.target === 'param');
    const validatedParams = paramValidator
      ? parametersFrom(convert(paramValidator.schema), 'path')
      : [];
    for (const param of params) {
      parameters.push(
        validatedParams.find((p) => p.name === param.name) ?? {
          name: param.name,
          in: 'path',
          required: true,
          schema: param.pattern
            ? { type: 'string', pattern: `^${param.pattern}$` }
            : { type: 'string' },
        },
      );
    }
    const query = operation.validators.find((v) => v.target === 'query')?.schema ?? doc.query;
    if (query) parameters.push(...parametersFrom(convert(query), 'query'));

    const body = operation.validators.find((v) => v.target === 'json');
    const errors = new Set(operation.errors);
    // Every request passes tenant resolution (400 bad header, 404 unknown tenant, 503 database).
    for (const status of [400, 404, 503]) errors.add(status);
    // Every write may carry a body (413, 415) and may keep losing a race to concurrent writes (409).
    if (operation.method !== 'GET' && operation.method !== 'HEAD') {
      for (const status of [409, 413, 415]) errors.add(status);
    }
    for (const status of doc.errors ?? []) errors.add(status);

    const responses: Record<string, unknown> = {};
    for (const [status, response] of Object.entries(doc.responses ?? { 200: z.unknown() })) {
      if (response === null) responses[status] = { description: 'No content' };
      else if (response instanceof z.ZodType) {
        responses[status] = {
          description: Number(status) === 201 ? 'Created' : 'Success',
          content: { 'application/json': { schema: convert(response, 'output') } },
        };
      } else {
        responses[status] = {
          description: response.description ?? 'Success',
          content: { [response.contentType]: { schema: response.schema ?? {} } },
        };
      }
    }
    for (const status of [...errors].sort((a, b) => a - b)) {
      usedErrors.add(status);
      responses[String(status)] = { $ref: `#/components/responses/E${status}` };
    }

    const description = [doc.description, ...operation.notes].filter(Boolean).join('\n\n');
    (paths[path] ??= {})[operation.method.toLowerCase()] = {
      operationId: operationId(operation.method, operation.path),
      summary: doc.summary,
      ...(description ? { description } : {}),
      tags: [tag],
      security: operation.authenticated ? [{ bearer: [] }] : [],
      parameters,
      ...(body
        ? {
            requestBody: {
              required: true,
              content: { 'application/json': { schema: convert(body.schema) } },
            },
          }
        : {}),
      responses,
    };
  }

  const errorResponses = Object.fromEntries(
    [...usedErrors]
      .sort((a, b) => a - b)
      .map((status) => [
        `E${status}`,
        {
          description: STATUS_TEXT[status] ?? `Error ${status}`,
          ...(RETRY_AFTER[status] ? { headers: { 'Retry-After': RETRY_AFTER[status] } } : {}),
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
      ]),
  );
  return {
    openapi: '3.1.1',
    info: {
      title: info.title,
      version: info.version,
      ...(info.description ? { description: info.description } : {}),
    },
    tags: [...tags].sort().map((name) => ({ name })),
    security: [{ bearer: [] }],
    paths,
    components: {
      schemas,
      responses: errorResponses,
      parameters: {
        Tenant: {
          name: 'X-Hub-Tenant',
          in: 'header',
          required: false,
          description:
            'The tenant to act in (`X-Harbor-Tenant` is accepted too). Blank or missing means the default tenant; others need `multitenancy.enabled`.',
          schema: { type: 'string' },
        },
      },
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API token (`hbk_…`) from `POST /admin/users`, the CLI or an invitation',
        },
      },
    },
  };
}
