/**
 * The one wrapper around `@hono/zod-validator`: every validation failure becomes a 400 whose message
 * names the offending field, e.g. `name: Invalid input: expected string, received undefined`.
 */
import { zValidator } from '@hono/zod-validator';
import type { ValidationTargets } from 'hono';
import type { z } from 'zod';
import { HttpError } from './errors.ts';

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

/** `validate('json', schema)`: validates the target and exposes it through `c.req.valid(target)`. */
export function validate<T extends z.ZodType, Target extends keyof ValidationTargets>(target: Target, schema: T) {
  return zValidator(target, schema, (result) => {
    if (!result.success) throw new HttpError(400, formatIssues(result.error as unknown as z.ZodError, target));
  });
}
