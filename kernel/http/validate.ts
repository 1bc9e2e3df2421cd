/**
 * The one wrapper around `@hono/zod-validator`: every validation failure becomes a 400 whose message
 * names the offending field, e.g. `name: Invalid input: expected string, received undefined`.
 * `jsonBody` adds the checks every JSON body gets on every route.
 */
import { zValidator } from '@hono/zod-validator';
import type { ValidationTargets } from 'hono';
import { z } from 'zod';
import { badRequest, HttpError } from '../errors.ts';

/** Formats the first zod issue as `<field path>: <message>` (or just the message at the root). */
export function formatIssues(error: z.ZodError, target?: string): string {
  const issue = error.issues[0];
  if (!issue) return 'Invalid request';
  const path = issue.path.map(String).join('.');
  if (path) return `${path}: ${issue.message}`;
  if (target === 'json') return `Request body: ${issue.message}`;
  if (target === 'query') return `Query: ${issue.message}`;
  return issue.message;
}

const VALIDATION = Symbol.for('workspace-hub.validation');

/** What a `validate()` middleware checks; the OpenAPI document is built from it. */
export interface ValidationInfo {
  target: keyof ValidationTargets;
  schema: z.ZodType;
}

/**
 * `validate('json', schema)`: validates the target and exposes it through `c.req.valid(target)`.
 * The middleware remembers its target and schema, so the API document describes exactly what is
 * validated; `documented` names the schema to describe when `schema` wraps it (see `jsonBody`).
 * For `json`, a body sent without any Content-Type is a 415 like a wrong type: the validator would
 * otherwise ignore it and blame a missing field. Without a body, the schema decides (a required
 * field is then a 400 naming it).
 */
export function validate<T extends z.ZodType, Target extends keyof ValidationTargets>(
  target: Target,
  schema: T,
  documented: z.ZodType = schema,
) {
  const validator = zValidator(target, schema, (result) => {
    if (!result.success)
      throw badRequest(formatIssues(result.error as unknown as z.ZodError, target));
  });
  let middleware: typeof validator = validator;
  if (target === 'json') {
    middleware = async (c, next) => {
      // The text is cached by the request, so the validator can still read the body after this.
      if (!c.req.header('content-type') && (await c.req.text()).length > 0) {
        throw new HttpError(
          415,
          'Content-Type must be application/json (the request sent a body without a Content-Type).',
        );
      }
      return validator(c, next);
    };
  }
  const info: ValidationInfo = { target, schema: documented };
  Object.defineProperty(middleware, VALIDATION, { value: info, enumerable: false });
  return middleware;
}

/** The target and schema of a `validate()` middleware, or undefined for any other handler. */
export function validationOf(handler: Function): ValidationInfo | undefined {
  return (handler as unknown as Record<symbol, ValidationInfo | undefined>)[VALIDATION];
}

/** Deepest nesting a body may have; deeper values would overflow the stack when serialized. */
export const MAX_DEPTH = 64;

type Problem = { path: (string | number)[]; message: string };

/** The first value no driver can store: a NUL character (value or key), or too deep a nesting. */
function findProblem(value: unknown, path: (string | number)[] = []): Problem | null {
  if (typeof value === 'string')
    return value.includes('\u0000') ? { path, message: 'must not contain NUL characters' } : null;
  if (!value || typeof value !== 'object') return null;
  if (path.length >= MAX_DEPTH)
    return { path, message: `must not be nested more than ${MAX_DEPTH} levels deep` };
  const entries: [string | number, unknown][] = Array.isArray(value)
    ? value.map((inner, i) => [i, inner])
    : Object.entries(value);
  for (const [key, inner] of entries) {
    if (typeof key === 'string' && key.includes('\u0000'))
      return { path: [...path, key], message: 'must not contain NUL characters' };
    const found = findProblem(inner, [...path, key]);
    if (found) return found;
  }
  return null;
}

/**
 * Validates a JSON body. Besides the schema, two things are refused anywhere in the body, because
 * they would fail only on some drivers or deep inside serialization: NUL characters (PostgreSQL
 * cannot store them in text or JSON) and nesting deeper than {@link MAX_DEPTH}.
 */
export function jsonBody<T extends z.ZodType>(schema: T) {
  const guarded = z.unknown().superRefine((value, ctx) => {
    const problem = findProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', path: problem.path, message: problem.message });
  });
  return validate('json', guarded.pipe(schema), schema);
}
