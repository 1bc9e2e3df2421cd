/**
 * Which configuration values are secrets, and the configuration with every one of them shown as
 * `***` (`GET /admin/config`). Three rules, any of which masks a value: a schema marks the field
 * as a secret ({@link secret}); its key reads like a credential (`password`, `token`, `url`, …,
 * as YAML error excerpts mask); or the file wrote it as `${NAME}`, so nobody reading the file saw
 * it. A field whose name only looks like a credential may be marked {@link notSecret} by its
 * schema (`server.publicUrl`, which refuses credentials); that does not unmask a `${NAME}` value
 * of another field, nor one of its own when the schema says nothing.
 */
import { z } from 'zod';
import { SECRET_KEY } from './yaml-error.ts';

/** How a masked value is shown. */
export const MASK = '***';

const secrecy = z.registry<{ secret: boolean }>();

/** Marks a config field as a secret: its value is never shown, whatever its key. */
export function secret<T extends z.ZodType>(schema: T): T {
  secrecy.add(schema, { secret: true });
  return schema;
}

/** Marks a config field whose key reads like a credential as safe to show (from the file). */
export function notSecret<T extends z.ZodType>(schema: T): T {
  secrecy.add(schema, { secret: false });
  return schema;
}

type Def = { type: string } & Record<string, unknown>;
const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** A schema and the schemas it wraps (optional, default, pipes…), outermost first. */
function layers(schema: z.ZodType): z.ZodType[] {
  const out: z.ZodType[] = [];
  const queue = [schema];
  while (queue.length > 0) {
    const current = queue.shift()!;
    out.push(current);
    const def = defOf(current);
    for (const key of ['innerType', 'in', 'out'] as const)
      if (def[key]) queue.push(def[key] as z.ZodType);
    if (def.type === 'lazy') queue.push((def.getter as () => z.ZodType)());
  }
  return out;
}

/** The schemas a child of a value under `schemas` may have: by key, item or record value. */
function childSchemas(schemas: readonly z.ZodType[], key: string): z.ZodType[] {
  const found: z.ZodType[] = [];
  const visit = (schema: z.ZodType) => {
    const def = defOf(schema);
    if (def.type === 'object') {
      const field = (def.shape as Record<string, z.ZodType>)[key];
      if (field) found.push(field);
    } else if (def.type === 'union') (def.options as z.ZodType[]).forEach(visit);
    else if (def.type === 'array') found.push(def.element as z.ZodType);
    else if (def.type === 'record') found.push(def.valueType as z.ZodType);
  };
  for (const schema of schemas) layers(schema).forEach(visit);
  return found;
}

/** What the schemas say of a field: a secret, not one, or nothing (`undefined`). */
function marked(schemas: readonly z.ZodType[]): boolean | undefined {
  const marks = schemas.flatMap(layers).flatMap((layer) => {
    const meta = secrecy.get(layer);
    return meta ? [meta.secret] : [];
  });
  if (marks.includes(true)) return true;
  return marks.includes(false) ? false : undefined;
}

/**
 * `config` as it may be shown: every value a rule of this file calls secret is {@link MASK}
 * (an empty or absent one stays as it is: it hides nothing). `schema` is the whole file's,
 * `fromEnv` the paths whose values read an environment variable.
 */
export function maskConfig(
  config: Record<string, unknown>,
  schema: z.ZodType,
  fromEnv: ReadonlySet<string>,
): Record<string, unknown> {
  const walk = (
    value: unknown,
    schemas: readonly z.ZodType[],
    path: string,
    key: string,
    inSecret: boolean,
  ): unknown => {
    const mark = marked(schemas);
    const hidden = inSecret || mark === true;
    if (Array.isArray(value))
      return value.map((item, index) =>
        walk(item, childSchemas(schemas, String(index)), `${path}.${index}`, key, hidden),
      );
    if (value !== null && typeof value === 'object')
      return Object.fromEntries(
        Object.entries(value).map(([name, item]) => [
          name,
          walk(item, childSchemas(schemas, name), path ? `${path}.${name}` : name, name, hidden),
        ]),
      );
    if (value === undefined || value === null || value === '') return value;
    if (hidden) return MASK;
    if (mark === false) return value;
    const suspect = SECRET_KEY.test(key) || fromEnv.has(path);
    return typeof value === 'string' && suspect ? MASK : value;
  };
  return walk(config, [schema], '', '', false) as Record<string, unknown>;
}
