/**
 * The OpenAPI 3.1 document, derived from what the hub actually mounts. Paths and methods come from
 * the hub's route table (`app.routes`, in registration order); request bodies, query and path
 * parameters come from the zod schemas of the `validate()` middleware on each route (converted with
 * zod's own `z.toJSONSchema`); whether a route needs a token, and which errors the pipeline can
 * give, come from the middleware registered before it, which describes itself
 * (`openapi-routes.ts`). Plugins add what the route table cannot know: a summary, the success
 * responses (zod schemas) and the errors their handlers throw.
 */
import type { Hono } from 'hono';
import { z } from 'zod';
import { collectOperations, operationId, templatePath, type Operation } from './openapi-routes.ts';
import {
  ERROR_SCHEMA,
  errorResponses,
  parametersFrom,
  schemaConverter,
} from './openapi-schemas.ts';

export { describeMiddleware, type MiddlewareDoc } from './openapi-routes.ts';

/** One success response: a zod schema of a JSON body, `null` for no body (204, 304, a redirect), or a non-JSON body. */
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

export interface OpenApiInfo {
  title: string;
  version: string;
  description?: string;
  /**
   * The tags in the order listed, with their descriptions, and the tag of each `METHOD /path`
   * given the tag of the docs it was found in; without it, each operation has that tag.
   */
  groups?: {
    tags: readonly { name: string; description: string }[];
    groupOf: (key: string, tag: string) => string;
  };
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
  const schemas: Record<string, unknown> = { Error: ERROR_SCHEMA };
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
    const tag = info.groups
      ? info.groups.groupOf(key, found?.tag ?? 'other')
      : (found?.tag ?? 'other');
    tags.add(tag);
    const { path, params } = templatePath(operation.path);
    const parameters = parametersOf(operation, doc, params, convert);
    const body = operation.validators.find((v) => v.target === 'json');
    const responses = responsesOf(operation, doc, convert, usedErrors);
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
  return documentOf(info, tags, paths, schemas, usedErrors);
}

type Convert = ReturnType<typeof schemaConverter>;

/** The tenant header, the path parameters (as validated, else plain strings) and the query's. */
function parametersOf(
  operation: Operation,
  doc: OperationDoc,
  params: ReturnType<typeof templatePath>['params'],
  convert: Convert,
): Record<string, unknown>[] {
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
  return parameters;
}

/** The documented success responses, then every error status the operation can give. */
function responsesOf(
  operation: Operation,
  doc: OperationDoc,
  convert: Convert,
  usedErrors: Set<number>,
): Record<string, unknown> {
  // The pipeline's statuses come from its described middleware, the handler's from the plugin.
  const errors = new Set(operation.errors);
  for (const status of doc.errors ?? []) errors.add(status);

  const responses: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(doc.responses ?? { 200: z.unknown() }))
    responses[status] = successResponse(Number(status), response, convert);
  for (const status of [...errors].sort((a, b) => a - b)) {
    usedErrors.add(status);
    const page = responses[String(status)] as { content?: Record<string, unknown> } | undefined;
    // A status the route documents as a page (an HTML refusal) may still come as the pipeline's
    // JSON error: both bodies are listed.
    responses[String(status)] = page?.content
      ? {
          ...page,
          content: {
            'application/json': { schema: { $ref: '#/components/schemas/Error' } },
            ...page.content,
          },
        }
      : { $ref: `#/components/responses/E${status}` };
  }
  return responses;
}

function successResponse(code: number, response: ResponseDoc, convert: Convert): unknown {
  if (response === null)
    return {
      description:
        code === 304
          ? 'Not modified: `If-None-Match` named the current ETag'
          : code >= 300 && code < 400
            ? 'Redirect to the page `Location` names'
            : 'No content',
    };
  if (response instanceof z.ZodType)
    return {
      description: code === 201 ? 'Created' : 'Success',
      content: { 'application/json': { schema: convert(response, 'output') } },
    };
  return {
    description: response.description ?? 'Success',
    content: { [response.contentType]: { schema: response.schema ?? {} } },
  };
}

/** The whole document around its paths: the tags in order, the shared components. */
function documentOf(
  info: OpenApiInfo,
  tags: Set<string>,
  paths: Record<string, Record<string, unknown>>,
  schemas: Record<string, unknown>,
  usedErrors: Set<number>,
): Record<string, any> {
  return {
    openapi: '3.1.1',
    info: {
      title: info.title,
      version: info.version,
      ...(info.description ? { description: info.description } : {}),
    },
    tags: [
      ...(info.groups?.tags ?? []).filter((group) => tags.has(group.name)),
      ...[...tags]
        .filter((name) => !info.groups?.tags.some((group) => group.name === name))
        .sort()
        .map((name) => ({ name })),
    ],
    security: [{ bearer: [] }],
    paths,
    components: {
      schemas,
      responses: errorResponses(usedErrors),
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
