/**
 * Ids that sort by time: the milliseconds of a row's own timestamp (the hub's clock) in base 36,
 * then a per-process counter, then randomness. Append-only tables (revisions, the audit log) key
 * their rows with them: new rows land at the end of the primary key instead of at random places,
 * "newest first" is the key's order, and a time range (`since`, pruning by age) is a key range.
 * Only `[0-9a-z]`, so every database collation orders them alike.
 */
import { newId } from './identity/secrets.ts';

let lastTime = 0;
let sequence = 0;

/** The leading characters of the ids made at `ms`: fixed width, so they compare as times do. */
export const timeIdPrefix = (ms: number) => Math.max(0, ms).toString(36).padStart(9, '0');

/** A new id for a row stamped `at` (ISO 8601). */
export function timeOrderedId(at: string): string {
  const ms = Date.parse(at);
  sequence = ms === lastTime ? sequence + 1 : 0;
  lastTime = ms;
  const random = newId().replace(/-/g, '').slice(0, 16);
  return `${timeIdPrefix(ms)}${sequence.toString(36).padStart(4, '0')}${random}`;
}

/**
 * The smallest id of a row stamped at or after `iso`, and the smallest of one after it: `since`
 * and `until` (inclusive, millisecond precision) as bounds of the key.
 */
export const idAtOrAfter = (iso: string) => timeIdPrefix(Date.parse(iso));
export const idAfter = (iso: string) => timeIdPrefix(Date.parse(iso) + 1);
