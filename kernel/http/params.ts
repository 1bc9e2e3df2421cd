/**
 * Path parameters: the ids the hub issues, and how a path id that could never have been issued is
 * answered without asking the database.
 */
import type { Context } from 'hono';
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
