/**
 * Zod's issues as configuration problems a person can act on: the YAML key, what it wants in
 * words, what was given (never a secret's value), and "did you mean" for a misspelled key.
 *
 * Reads only zod's public surface: the issues of `error.issues` (`code`, `path`, `message`, and
 * `keys`, `errors`, `values`, `expected`, `minimum`, `maximum` where their code has them), and the
 * schema as JSON Schema (`z.toJSONSchema`) for what a key accepts and which keys a section knows.
 */
import { z } from 'zod';

/** One problem of a configuration file. */
export interface ConfigProblem {
  path: string;
  message: string;
}

/** The part of JSON Schema that `z.toJSONSchema` writes and the translator reads. */
interface JsonNode {
  type?: string;
  properties?: Record<string, JsonNode>;
  items?: JsonNode;
  anyOf?: JsonNode[];
  oneOf?: JsonNode[];
  enum?: unknown[];
  const?: unknown;
}

/** The schema as JSON Schema (its input side: what the file may say), or nothing to go on. */
function jsonSchemaOf(schema: z.ZodType): JsonNode {
  try {
    return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonNode;
  } catch {
    return {};
  }
}

/** A node's alternatives: a union gives every option, anything else itself. */
function options(node: JsonNode | undefined): JsonNode[] {
  if (!node) return [];
  const alternatives = node.anyOf ?? node.oneOf;
  return alternatives ? alternatives.flatMap(options) : [node];
}

/** The nodes a path may lead to; for a union of objects, the options whose discriminator matches. */
function nodesAt(root: JsonNode, path: readonly PropertyKey[], value: unknown): JsonNode[] {
  let candidates = options(root);
  let current = value;
  for (const key of path) {
    const objects = candidates.filter((c) => c.properties);
    // Among the options of a discriminated union, keep those that accept the value's discriminator.
    const matching = objects.filter((c) =>
      Object.entries(c.properties!).every(([name, field]) => {
        const literal = options(field).find((f) => 'const' in f);
        return (
          !literal || literal.const === (current as Record<string, unknown> | undefined)?.[name]
        );
      }),
    );
    const from = matching.length > 0 ? matching : objects;
    candidates = [
      ...from.flatMap((c) => options(c.properties![String(key)])),
      ...candidates.flatMap((c) => (c.items ? options(c.items) : [])),
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

/** A type in words, by its JSON Schema or zod name. */
const TYPE_WORDS: Record<string, string> = {
  integer: 'an integer',
  int: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  string: 'a string',
  object: 'a mapping',
  array: 'a list',
};

/** Words for a list of allowed values; `true`/`false` as text beside a boolean say nothing new. */
function addValues(words: Set<string>, values: readonly unknown[]): void {
  // Environment variables can only give text, so booleans also accept "true" and "false".
  const booleanText = values.length === 2 && values.includes('true') && values.includes('false');
  if (!(booleanText && words.has(TYPE_WORDS.boolean!))) words.add(`one of ${values.join(', ')}`);
}

/** What the nodes want, in words ("an integer", "true or false", …). */
function expectation(nodes: readonly JsonNode[], fallback: string | undefined): string {
  const words = new Set<string>();
  for (const node of nodes) {
    if (node.enum) addValues(words, node.enum);
    else if ('const' in node) words.add(String(node.const));
    else if (node.type && TYPE_WORDS[node.type]) words.add(TYPE_WORDS[node.type]!);
  }
  if (words.size === 0)
    return fallback ? `${/^[aeiou]/.test(fallback) ? 'an' : 'a'} ${fallback}` : 'a valid value';
  return [...words].join(' or ');
}

/** What the options of a union wanted, from the issues each option raised (`errors`). */
function unionExpectation(
  errors: readonly (readonly z.core.$ZodIssue[])[],
  value: unknown,
): string {
  const words = new Set<string>();
  for (const [issue] of errors) {
    if (!issue) continue;
    // An option that failed deeper down took the value's own type.
    if (issue.path.length > 0) words.add(TYPE_WORDS[Array.isArray(value) ? 'array' : 'object']!);
    else if (issue.code === 'invalid_type' && TYPE_WORDS[issue.expected])
      words.add(TYPE_WORDS[issue.expected]!);
    else if (issue.code === 'invalid_value') addValues(words, issue.values);
  }
  return words.size > 0 ? [...words].join(' or ') : 'a valid value';
}

/** A secret's value never appears in a message: messages reach logs and the reload answer. */
const isSecret = (path: readonly PropertyKey[]) =>
  path.some((key) => /password|token|secret|apikey|credential/i.test(String(key)));

/** The problems of a failed validation of `document` against `schema`, one or more per issue. */
export function describeIssues(
  issues: readonly z.core.$ZodIssue[],
  schema: z.ZodType,
  document: unknown,
): ConfigProblem[] {
  if (issues.length === 0) return [];
  const root = jsonSchemaOf(schema);
  return issues.flatMap((issue) => describeIssue(issue, root, document));
}

function describeIssue(
  issue: z.core.$ZodIssue,
  root: JsonNode,
  document: unknown,
): ConfigProblem[] {
  const path = issue.path.map(String).join('.');
  const at = (key?: string) => [path, key].filter(Boolean).join('.') || '(root)';
  const value = valueAt(document, issue.path);
  const got = (given: unknown) => (isSecret(issue.path) ? '' : `, got ${shown(given)}`);
  switch (issue.code) {
    case 'unrecognized_keys': {
      const known = nodesAt(root, issue.path, document).flatMap((c) =>
        Object.keys(c.properties ?? {}),
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
        { path: at(), message: `expected ${unionExpectation(issue.errors, value)}${got(value)}` },
      ];
    case 'invalid_type':
      if (value === undefined) return [{ path: at(), message: 'missing (required)' }];
      return [
        {
          path: at(),
          message: `expected ${expectation(nodesAt(root, issue.path, document), issue.expected)}${got(value)}`,
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
