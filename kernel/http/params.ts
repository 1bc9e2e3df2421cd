/**
 * Path and query parameters: the ids the hub issues, how a path id that could never have been
 * issued is answered without asking the database, and queries that name several ids.
 */
import type { Context } from 'hono';
import { z } from 'zod';
import { notFound } from '../errors.ts';

/** Longest id a body or path may reference; ids are stored in 128-character columns. */
export const ID_MAX = 128;

/**
 * A path id. Ids the hub could never have issued (too long, or holding a NUL that PostgreSQL
 * cannot even compare) are answered as missing (`missing` is the 404's message).
 */
export function pathId(c: Context<any, any, any>, name: string, missing: string): string {
  const value = c.req.param(name) ?? '';
  if (!value || value.length > ID_MAX || value.includes('\u0000')) throw notFound(missing);
  return value;
}

/** Most ids a list query (`userIds=a,b,c`) may name: one page of the largest list. */
export const IDS_MAX = 100;

/**
 * A query of comma-separated ids (`userIds=a,b,c`): 1 to {@link IDS_MAX} ids the hub could have
 * issued, duplicates dropped; each bad part is a 400 naming the field.
 */
export function idsQuery() {
  return z
    .string({ error: 'must be a single string of comma-separated ids' })
    .transform((value, ctx) => {
      const ids = [...new Set(value.split(',').map((id) => id.trim()))];
      if (ids.some((id) => !id || id.length > ID_MAX || id.includes('\u0000')))
        ctx.addIssue({
          code: 'custom',
          message: `must be comma-separated ids of at most ${ID_MAX} characters, none empty`,
        });
      else if (ids.length > IDS_MAX)
        ctx.addIssue({ code: 'custom', message: `must name at most ${IDS_MAX} ids` });
      return ids;
    });
}
