/**
 * The schemas of the API document: zod schemas converted to JSON Schema (with shared components),
 * parameters from a validator's object schema, and the one error schema every error answer uses.
 */
import { z } from 'zod';
import { ERROR_CODES } from '../errors.ts';

/**
 * Converts zod schemas. Schemas named with `.meta({ id })` become `components.schemas.<id>` and are
 * referenced wherever they are used; other `$defs` and self references (recursive schemas) are
 * hoisted under a generated name, because `#` inside an OpenAPI document means the document.
 */
export function schemaConverter(components: Record<string, unknown>) {
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

export function parametersFrom(
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

/** `components.schemas.Error`: the body of every error answer. */
export const ERROR_SCHEMA = {
  type: 'object',
  properties: {
    error: {
      type: 'string',
      description:
        'What went wrong, for people; validation messages name the field, e.g. `name: Invalid input`',
    },
    code: {
      type: 'string',
      enum: [...ERROR_CODES],
      description:
        'What kind of failure it is, for programs: stable across releases, unlike the message',
    },
    current: {
      type: 'object',
      description: "Only on a 412: the record as it is now (its version is the answer's `ETag`)",
    },
    reason: {
      type: 'string',
      enum: ['redeemed', 'expired', 'revoked'],
      description: 'Only on a 410 for an invitation: why it can no longer be used',
    },
  },
  required: ['error', 'code'],
  description:
    'A few answers add fields: `fatalError` and `sections` (config reload), `checks` (readiness), `current` (412), `reason` (410).',
};

const STATUS_TEXT: Record<number, string> = {
  400: 'Invalid request: a field is missing or malformed, or the tenant header is not usable',
  401: 'Missing, unknown or revoked bearer token',
  402: 'The monthly LLM token allowance is used up',
  403: 'The token is valid but may not do this',
  404: 'Not found (the resource, or the tenant named by the tenant header)',
  405: 'Method not allowed on this path',
  409: 'Conflict with the current state, or with a concurrent change; try again',
  410: 'Gone: the invitation expired or was already used',
  412: 'The record changed since the version `If-Match` named; `current` is the record now',
  413: 'Request body too large (`server.bodyLimitBytes`)',
  414: 'URL too long',
  415: 'A request body that is not JSON',
  429: 'Too many failed attempts from this address; see Retry-After',
  500: 'Unexpected failure',
  502: 'The upstream provider failed',
  503: 'A dependency (database, throttle store, upstream) is unavailable, or the feature is not configured. For a dependency that is down the body is `{"error": "Service Unavailable", "code": "service_unavailable"}` with `Retry-After`; while it stays down (its circuit breaker open) the answer is immediate',
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

/** `components.responses.E<status>` for each status used, all with the {@link ERROR_SCHEMA} body. */
export function errorResponses(statuses: Iterable<number>): Record<string, unknown> {
  return Object.fromEntries(
    [...statuses]
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
}
