/**
 * Request-body building blocks shared by every entity route. Bodies are validated at the edge so a
 * handler only ever sees well-typed values; anything malformed is a 400 that names the field
 * (`kernel/http/validate.ts`), never a database error.
 */
import { z } from 'zod';
import { ID_MAX } from '../../kernel/http/params.ts';
import { safeName } from '../../kernel/text.ts';

/** Longest accepted entity name, in characters (not UTF-16 units), on every driver. */
export const NAME_MAX = 255;

/**
 * A trimmed, non-empty name of at most {@link NAME_MAX} characters, without control or
 * bidirectional-override characters (names are shown in lists, terminals and the desktop).
 */
export const nameSchema = safeName(
  z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .refine((value) => [...value].length <= NAME_MAX, `must be at most ${NAME_MAX} characters`),
);

/** A reference to another row by id. */
export const idSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(ID_MAX, `must be at most ${ID_MAX} characters`);

/** The sidebar marker: a short string, or null; blank means none. */
export const markerSchema = safeName(
  z.string().max(NAME_MAX, `must be at most ${NAME_MAX} characters`),
)
  .nullable()
  .transform((value) => (value && value.trim() ? value.trim() : null));

export const variableSchema = z.object({
  key: z.string(),
  value: z.string().default(''),
  defaultValue: z.string().default(''),
  enabled: z.boolean().default(true),
  share: z.boolean().default(false),
});
export type Variable = z.output<typeof variableSchema>;

export const keyValueSchema = z.object({
  key: z.string(),
  value: z.string().default(''),
  enabled: z.boolean().default(true),
});
export type KeyValue = z.output<typeof keyValueSchema>;

/** Auth settings; a partial object is completed so records always carry the full shape. */
export const authSchema = z.object({
  type: z.enum(['none', 'basic', 'bearer']).default('none'),
  basic: z
    .object({ username: z.string().default(''), password: z.string().default('') })
    .prefault({}),
  bearer: z.object({ token: z.string().default('') }).prefault({}),
});
export type AuthConfig = z.output<typeof authSchema>;

/** Enums of record fields, also the types of their columns (tables.ts). */
export const protocolSchema = z.enum(['http', 'sse']);
export const methodSchema = z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);
export const bodyTypeSchema = z.enum(['none', 'json', 'text', 'multipart', 'urlencoded']);
export const snippetScopeSchema = z.enum(['pre-request', 'post-request', 'any']);
export type Protocol = z.output<typeof protocolSchema>;
export type Method = z.output<typeof methodSchema>;
export type BodyType = z.output<typeof bodyTypeSchema>;
export type SnippetScope = z.output<typeof snippetScopeSchema>;

export const defaultAuth = (): AuthConfig => authSchema.parse({});

/** `PUT /admin/<kind>/:id`: toggles the deletion lock. */
export const lockBody = z.object({ deletionLocked: z.boolean() });

/** Lists are capped so one request cannot make the hub do unbounded work per element. */
export const listOf = <T extends z.ZodType>(item: T) =>
  z.array(item).max(10_000, 'must have at most 10000 entries');

/** Drops keys whose value is undefined, so a partial update only touches what the client sent. */
export function definedOnly<T extends object>(input: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(input).filter(([, value]) => value !== undefined),
  ) as Partial<T>;
}

type WithoutDefault<T> =
  T extends z.ZodDefault<infer Inner> ? Inner : T extends z.ZodPrefault<infer Inner> ? Inner : T;

/**
 * An update body's fields: each one optional, and without its create default, so an omitted field
 * keeps its value (zod's `.partial()` would fill in the default instead).
 */
export function optionalFields<S extends z.ZodRawShape>(
  shape: S,
): { [K in keyof S]: z.ZodOptional<WithoutDefault<S[K]>> } {
  const optional: Record<string, z.ZodType> = {};
  for (const [key, field] of Object.entries(shape)) {
    const inner =
      field instanceof z.ZodDefault || field instanceof z.ZodPrefault ? field.unwrap() : field;
    optional[key] = (inner as z.ZodType).optional();
  }
  return optional as { [K in keyof S]: z.ZodOptional<WithoutDefault<S[K]>> };
}
