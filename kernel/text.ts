/**
 * Text that people read in terminals and UIs: the characters a name may not hold, and how the CLI
 * prints anything that could still act on a terminal. One rule for HTTP and the CLI alike.
 *
 * Refused in names: C0 controls and DEL (U+0000–U+001F, U+007F), C1 controls (U+0080–U+009F; U+009B
 * is a one-byte CSI that moves the cursor or recolours a terminal), and the bidirectional controls
 * that reorder what follows them (U+202A–U+202E embeddings and overrides, U+2066–U+2069 isolates,
 * and the invisible marks U+200E, U+200F and U+061C), so a name cannot pass itself off as another.
 */
import type { z } from 'zod';

/** Characters no name may contain. */
export const UNSAFE_NAME_CHARS =
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** The end of every refusal: `<field>: must not contain …`. */
export const UNSAFE_NAME_MESSAGE = 'must not contain control or bidirectional-override characters';

/** Whether `text` holds a character {@link UNSAFE_NAME_CHARS} refuses. */
export const hasUnsafeNameChars = (text: string) => UNSAFE_NAME_CHARS.test(text);

/** The rule as a zod refinement, for request bodies: a 400 `<field>: must not contain …`. */
export const safeName = <T extends z.ZodType<string>>(schema: T) =>
  schema.refine((value) => !hasUnsafeNameChars(value), UNSAFE_NAME_MESSAGE);

/**
 * What a terminal must never receive raw: every control (C0, DEL, C1), the bidirectional controls,
 * other invisible format characters (zero-width ones, word joiners, line and paragraph separators,
 * the byte-order mark, interlinear annotations) and lone surrogates.
 */
export const UNPRINTABLE =
  /[\u0000-\u001f\u007f-\u009f\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const escapeChar = (char: string) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** `text` with every unprintable character written as `\uXXXX`, safe to print on a terminal. */
export function escapeUnprintable(text: string): string {
  return text.replace(UNPRINTABLE, escapeChar);
}

/** What `JSON.stringify` leaves raw of {@link UNPRINTABLE} (it escapes C0 and lone surrogates). */
const RAW_IN_JSON =
  /[\u007f-\u009f\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]/g;

/**
 * JSON text (from `JSON.stringify`) with the characters it leaves raw (DEL, C1 controls,
 * bidirectional and other invisible ones) written as `\uXXXX` escapes: still the same JSON value,
 * and never raw on a terminal. They can only occur inside strings, where the escape means the same
 * character; the newlines and spaces between tokens are left as they are.
 */
export function escapeJsonText(json: string): string {
  return json.replace(RAW_IN_JSON, escapeChar);
}
