/**
 * Loading server.yaml: find the file, parse YAML, interpolate `${ENV}`, validate every section
 * with its owner's zod schema. Every failure is a {@link ConfigError} that names the YAML key.
 */
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { z } from 'zod';
import { ConfigError } from './errors.ts';
import { interpolate, type Env } from './interpolate.ts';
import { kernelSections } from './sections.ts';

export type SectionSchemas = Record<string, z.ZodType>;

/** The validated configuration: kernel sections plus every plugin's section. */
export type HubConfig = z.output<z.ZodObject<typeof kernelSections>> & Record<string, unknown>;

export interface LoadedConfig {
  /** Absolute path of the file read, or null when running on built-in defaults. */
  path: string | null;
  config: HubConfig;
}

/** The file to read: `--config` when given (it must exist), else ./server.yaml if present, else none. */
export function resolveConfigPath(explicit: string | undefined, cwd: string): string | null {
  if (explicit) {
    const path = resolve(cwd, explicit);
    if (!existsSync(path)) throw new ConfigError(`Config file not found: ${path}`);
    return path;
  }
  const fallback = resolve(cwd, 'server.yaml');
  return existsSync(fallback) ? fallback : null;
}

/** One problem of a configuration file. */
export interface ConfigProblem {
  path: string;
  message: string;
}

type AnySchema = z.core.$ZodType;
const defOf = (schema: AnySchema) =>
  (schema as unknown as { _zod: { def: Record<string, any> } })._zod.def;

/** The schema of one value: defaults, optionals and pipes unwrapped; unions give every option. */
function unwrap(schema: AnySchema | undefined): AnySchema[] {
  if (!schema) return [];
  const def = defOf(schema);
  switch (def.type) {
    case 'default':
    case 'prefault':
    case 'optional':
    case 'nullable':
    case 'readonly':
      return unwrap(def.innerType);
    case 'pipe':
      return unwrap(def.in);
    case 'union':
      return (def.options as AnySchema[]).flatMap(unwrap);
    default:
      return [schema];
  }
}

/** The schemas a path may lead to; for a union of objects, the options whose discriminator matches. */
function schemasAt(schema: AnySchema, path: readonly PropertyKey[], value: unknown): AnySchema[] {
  let candidates = unwrap(schema);
  let current = value;
  for (const key of path) {
    const objects = candidates.filter((c) => defOf(c).type === 'object');
    // Among the options of a discriminated union, keep those that accept the value's discriminator.
    const matching = objects.filter((c) => {
      const shape = defOf(c).shape as Record<string, AnySchema>;
      return Object.entries(shape).every(([name, field]) => {
        const literal = unwrap(field).find((f) => defOf(f).type === 'literal');
        return (
          !literal ||
          (defOf(literal).values as unknown[]).includes(
            (current as Record<string, unknown> | undefined)?.[name],
          )
        );
      });
    });
    const from = matching.length > 0 ? matching : objects;
    const arrays = candidates.filter((c) => defOf(c).type === 'array');
    candidates = [
      ...from.flatMap((c) => unwrap((defOf(c).shape as Record<string, AnySchema>)[String(key)])),
      ...arrays.flatMap((c) => unwrap(defOf(c).element)),
    ];
    current = (current as Record<string, unknown> | undefined)?.[String(key)];
  }
  return candidates;
}

/** Levenshtein distance, for "did you mean". */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const saved = row[j]!;
      row[j] = Math.min(
        row[j]! + 1,
        row[j - 1]! + 1,
        previous + (a[i - 1]!.toLowerCase() === b[j - 1]!.toLowerCase() ? 0 : 1),
      );
      previous = saved;
    }
  }
  return row[b.length]!;
}

/** The known key closest to a misspelled one, when it is close enough to be a typo. */
export function closestKey(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const d = distance(key, candidate);
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(best.length / 3))
    ? best
    : undefined;
}

/** How a value looks in a message: strings quoted, as the user wrote them. */
function shown(value: unknown): string {
  // "true" or "80" in quotes is text, not the boolean or number it resembles: say so.
  if (typeof value === 'string')
    return /^(true|false|-?\d+(\.\d+)?)$/.test(value)
      ? `${JSON.stringify(value)} (quoted text)`
      : JSON.stringify(value);
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return String(value);
}

function valueAt(document: unknown, path: readonly PropertyKey[]): unknown {
  let current = document;
  for (const key of path)
    current = (current as Record<string, unknown> | null | undefined)?.[String(key)];
  return current;
}

/** What a leaf schema wants, in words ("an integer", "true or false", …). */
function expectation(schemas: readonly AnySchema[], fallback: string | undefined): string {
  const words = new Set<string>();
  for (const schema of schemas) {
    const def = defOf(schema);
    if (def.type === 'number') {
      const integer = ((def.checks ?? []) as AnySchema[]).some((check) =>
        /int/.test(String(defOf(check).format ?? '')),
      );
      words.add(integer ? 'an integer' : 'a number');
    } else if (def.type === 'boolean') words.add('true or false');
    else if (def.type === 'string') words.add('a string');
    else if (def.type === 'object') words.add('a mapping');
    else if (def.type === 'array') words.add('a list');
    else if (def.type === 'enum') {
      const values = Object.values(def.entries as Record<string, string>);
      // `true`/`false` as strings beside a boolean: environment variables can only give text.
      if (!(
        values.length === 2 &&
        values.includes('true') &&
        values.includes('false') &&
        words.has('true or false')
      )) {
        words.add(`one of ${values.join(', ')}`);
      }
    } else if (def.type === 'literal')
      words.add(`${(def.values as unknown[]).map(String).join(', ')}`);
  }
  if (words.size === 0)
    return fallback ? `${/^[aeiou]/.test(fallback) ? 'an' : 'a'} ${fallback}` : 'a valid value';
  return [...words].join(' or ');
}

function describeIssue(
  issue: z.core.$ZodIssue,
  schema: AnySchema,
  document: unknown,
): ConfigProblem[] {
  const path = issue.path.map(String).join('.');
  const at = (key?: string) => [path, key].filter(Boolean).join('.') || '(root)';
  const value = valueAt(document, issue.path);
  // A secret's value never appears in a message: messages reach logs and the reload answer.
  const secret = issue.path.some((key) =>
    /password|token|secret|apikey|credential/i.test(String(key)),
  );
  const got = (given: unknown) => (secret ? '' : `, got ${shown(given)}`);
  switch (issue.code) {
    case 'unrecognized_keys': {
      const known = schemasAt(schema, issue.path, document).flatMap((c) =>
        defOf(c).type === 'object' ? Object.keys(defOf(c).shape) : [],
      );
      return issue.keys.map((key) => {
        const suggestion = closestKey(key, [...new Set(known)]);
        return {
          path: at(key),
          message: `${path ? 'unknown key' : 'unknown section'}${suggestion ? ` (did you mean ${suggestion}?)` : ''}`,
        };
      });
    }
    case 'invalid_union':
      if (path === 'db' || path.endsWith('.db') || path.endsWith('db.driver')) {
        const driver = path.endsWith('driver')
          ? value
          : (value as { driver?: unknown } | null)?.driver;
        if (
          path.endsWith('driver') ||
          value === null ||
          typeof value !== 'object' ||
          'driver' in value
        ) {
          // The removed pglite driver is an option of the schema only to explain itself; not offered.
          const where = path.endsWith('driver') ? path : `${path}.driver`;
          return [
            {
              path: where,
              message: `must be one of sqlite, postgres, mysql, firestore${driver === undefined ? '' : got(driver)}`,
            },
          ];
        }
      }
      return [
        {
          path: at(),
          message: `expected ${expectation(schemasAt(schema, issue.path, document), undefined)}${got(value)}`,
        },
      ];
    case 'invalid_type':
      if (value === undefined) return [{ path: at(), message: 'missing (required)' }];
      return [
        {
          path: at(),
          message: `expected ${expectation(schemasAt(schema, issue.path, document), issue.expected)}${got(value)}`,
        },
      ];
    case 'invalid_value':
      return [
        {
          path: at(),
          message: `expected ${issue.values.length > 1 ? 'one of ' : ''}${issue.values.map(String).join(', ')}${got(value)}`,
        },
      ];
    case 'too_big':
      if (issue.origin === 'number')
        return [{ path: at(), message: `must be at most ${issue.maximum}${got(value)}` }];
      break;
    case 'too_small':
      if (issue.origin === 'number')
        return [{ path: at(), message: `must be at least ${issue.minimum}${got(value)}` }];
      if (issue.origin === 'string' && Number(issue.minimum) === 1)
        return [{ path: at(), message: 'must not be empty' }];
      break;
  }
  return [{ path: at(), message: issue.message }];
}

/** The error for a list of problems: one line for one, a list for several. */
function problemsError(source: string, problems: readonly ConfigProblem[]): ConfigError {
  const lines = problems.map((p) => `${p.path}: ${p.message}`);
  const message =
    lines.length === 1
      ? `${source}: ${lines[0]}`
      : `${source}: ${lines.length} problems:\n${lines.map((line) => `  ${line}`).join('\n')}`;
  return new ConfigError(message, problems[0]?.path, problems);
}

/** Validates an already parsed document against the kernel's and the plugins' section schemas. */
export function validateConfig(
  document: unknown,
  pluginSections: SectionSchemas,
  env: Env,
  source = 'server.yaml',
): HubConfig {
  const value = document ?? {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new ConfigError(`${source}: the file must be a YAML mapping of sections`);
  }
  // Every missing variable is reported, together with every other problem of the file.
  const problems: ConfigProblem[] = [];
  const interpolated = interpolate(value, env, '', problems);
  const schema = z.strictObject({ ...kernelSections, ...pluginSections });
  const result = schema.safeParse(interpolated);
  if (result.success && problems.length === 0) return result.data as HubConfig;
  const found = result.success
    ? []
    : result.error.issues.flatMap((issue) => describeIssue(issue, schema, interpolated));
  // A misspelled key first: it usually explains a "missing" one in the same section.
  const unknown = found.filter((p) => p.message.startsWith('unknown'));
  const broken = new Set(problems.map((p) => p.path));
  const rest = found.filter((p) => !p.message.startsWith('unknown') && !broken.has(p.path));
  throw problemsError(source, [...problems, ...unknown, ...rest]);
}

/** Parses YAML text and validates it. */
export function parseConfig(
  text: string,
  pluginSections: SectionSchemas,
  env: Env,
  source = 'server.yaml',
): HubConfig {
  let document: unknown;
  try {
    document = parseYaml(text);
  } catch (error) {
    const detail = error instanceof YAMLParseError ? error.message.split('\n')[0] : String(error);
    throw new ConfigError(`${source}: invalid YAML: ${detail}`);
  }
  return validateConfig(document, pluginSections, env, source);
}

/** Finds, reads and validates the configuration. With no file, the built-in defaults apply. */
export async function loadConfig(options: {
  explicitPath?: string;
  cwd: string;
  env: Env;
  pluginSections: SectionSchemas;
}): Promise<LoadedConfig> {
  const path = resolveConfigPath(options.explicitPath, options.cwd);
  if (path === null)
    return { path: null, config: validateConfig({}, options.pluginSections, options.env) };
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`Cannot read config file ${path}: ${(error as Error).message}`);
  }
  return { path, config: parseConfig(text, options.pluginSections, options.env, path) };
}
