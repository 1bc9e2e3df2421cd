/**
 * Paging shared by the discussion list, the notice feed and the MLS relay: one keyset cursor codec
 * and one `limit` query schema, so every list refuses the same bad input with the same 400s.
 *
 * A cursor is an opaque base64url of the last row's (createdAt, id); clients only hand it back.
 * Anything the hub could not have issued (bad base64, a bad timestamp, an empty, oversized or
 * NUL-carrying id, bytes that are not UTF-8) decodes to null, so it never reaches storage.
 */
import { Buffer } from 'node:buffer';
import { z } from 'zod';
import { ID_MAX } from './params.ts';

/** The largest page any list serves. */
export const MAX_LIMIT = 100;
const LIMIT_MESSAGE = `must be an integer from 1 to ${MAX_LIMIT}`;

/** A decimal integer from 1 to 100: no hex (`0x10`), exponents, signs, blanks or repeated keys. */
const limitText = () =>
  z
    .string({ error: LIMIT_MESSAGE })
    .regex(/^\d{1,3}$/, LIMIT_MESSAGE)
    .transform(Number)
    .refine((value) => value >= 1 && value <= MAX_LIMIT, LIMIT_MESSAGE);

/** `limit`: `defaultLimit` when absent; each bad value a 400 naming the field. */
export function limitQuery(defaultLimit: number) {
  return limitText().default(defaultLimit);
}

/** `limit` of a list that answers everything without one (paging is the caller's choice). */
export function optionalLimitQuery() {
  return limitText().optional();
}

/** A row's place in a (createdAt, id) order. */
export interface KeysetPosition {
  createdAt: string;
  id: string;
}

/** Far longer than any cursor the hub issues; longer input is refused before decoding. */
const CURSOR_MAX = 512;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The cursor for the page after `row`. */
export function encodeCursor(row: KeysetPosition): string {
  return Buffer.from(`${row.createdAt}|${row.id}`, 'utf8').toString('base64url');
}

/**
 * A cursor that names only a time, for a list that must not reveal the row it stopped at (the
 * notice feed stopping on a notice the reader may no longer see). It decodes, where a list
 * accepts it (`cursorQuery`'s `timeOnly`), to a position with an empty id: in a descending list,
 * every row older than that time comes next.
 */
export function encodeTimeCursor(createdAt: string): string {
  return Buffer.from(createdAt, 'utf8').toString('base64url');
}

const validTime = (text: string) =>
  ISO.test(text) &&
  !Number.isNaN(Date.parse(text)) &&
  // Normalizes e.g. a 30th of February, which Date.parse rolls over instead of refusing.
  new Date(text).toISOString() === text;

/**
 * The position a cursor names, or null for anything the hub could not have issued. With
 * `timeOnly`, a cursor from {@link encodeTimeCursor} is accepted too (its position's id is empty).
 */
export function decodeCursor(
  cursor: string,
  options: { timeOnly?: boolean } = {},
): KeysetPosition | null {
  if (cursor.length === 0 || cursor.length > CURSOR_MAX || !BASE64URL.test(cursor)) return null;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const bar = text.indexOf('|');
  if (bar < 0) return options.timeOnly && validTime(text) ? { createdAt: text, id: '' } : null;
  const createdAt = text.slice(0, bar);
  const id = text.slice(bar + 1);
  if (!validTime(createdAt)) return null;
  // U+FFFD stands for bytes that were not UTF-8: no id the hub issues contains it.
  if (!id || id.length > ID_MAX || id.includes('\u0000') || id.includes('\uFFFD')) return null;
  return { createdAt, id };
}

/**
 * `cursor`: an optional keyset cursor, decoded; a bad one is a 400 `cursor: Invalid <what> cursor`.
 * With `emptyIsAbsent`, `cursor=` means the first page instead of a bad cursor; with `timeOnly`,
 * cursors from {@link encodeTimeCursor} are accepted (see there).
 */
export function cursorQuery(
  what: string,
  options: { emptyIsAbsent?: boolean; timeOnly?: boolean } = {},
) {
  const message = `Invalid ${what} cursor`;
  return z
    .string({ error: 'must be a single string' })
    .optional()
    .transform((value, ctx): KeysetPosition | undefined => {
      if (value === undefined || (value === '' && options.emptyIsAbsent)) return undefined;
      const position = decodeCursor(value, options);
      if (!position) {
        ctx.addIssue({ code: 'custom', message });
        return z.NEVER;
      }
      return position;
    });
}
