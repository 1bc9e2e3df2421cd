/**
 * The audit log's text: every string an event holds (names a provider or a client chose, ids, the
 * values and keys of `details`) with control, bidirectional and other invisible characters written
 * as `\uXXXX` (the CLI's rule, `kernel/text.ts`), and cut to a length. Applied when an event is
 * written, and again when one is read, for rows stored before and for workspace events read from
 * revisions; escaping twice changes nothing.
 */
import { escapeUnprintable } from '../../kernel/text.ts';

/** Longest name (actor, target) the log keeps, in characters. */
export const NAME_MAX = 255;
/** Longest string value in `details`. */
export const DETAIL_TEXT_MAX = 1000;
/** Longest key in `details`. */
const DETAIL_KEY_MAX = 64;
/** Most items of one array in `details`. */
const DETAIL_ITEMS_MAX = 100;
/** Deepest nesting of `details` kept; deeper values are dropped. */
const DETAIL_DEPTH_MAX = 8;

/**
 * `text` escaped and at most `max` characters (code points), a cut one ending in `…`; a cut never
 * splits an escape.
 */
export function cleanText(text: string, max: number): string {
  const escaped = escapeUnprintable(text);
  const chars = [...escaped];
  if (chars.length <= max) return escaped;
  return `${chars
    .slice(0, max - 1)
    .join('')
    .replace(/\\u[0-9a-f]{0,3}$/, '')}…`;
}

/** {@link cleanText} for a nullable field. */
export const cleanNullable = (text: string | null, max: number) =>
  text === null ? null : cleanText(text, max);

/** `details` with every key and string value cleaned, arrays and nesting bounded. */
export function cleanDetails(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return cleanText(value, DETAIL_TEXT_MAX);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= DETAIL_DEPTH_MAX) return null;
  if (Array.isArray(value))
    return value.slice(0, DETAIL_ITEMS_MAX).map((item) => cleanDetails(item, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      cleanText(key, DETAIL_KEY_MAX),
      cleanDetails(item, depth + 1),
    ]),
  );
}
