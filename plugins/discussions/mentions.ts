/**
 * `@mentions` in plaintext bodies. Names may contain spaces, so each `@` is tried against every
 * user name, longest first (`@Ann Lee` must win over `@Ann`). A match must end at a boundary: a
 * following letter, digit, `_`, `.` or `-` means the text names someone else (`@ann.smith`).
 * Matching is case-insensitive, as user names are unique case-insensitively.
 */
import type { UserRow } from '../../kernel/identity/tables.ts';

/** Characters that continue a name, so a match followed by one is not a mention. */
const CONTINUES_NAME = /[\p{L}\p{N}_.-]/u;

/** Users named in `text` (each once, in order of first mention); `system` accounts never match. */
export function findMentions(text: string, users: readonly UserRow[]): UserRow[] {
  if (!text.includes('@')) return [];
  const candidates = users
    .filter((user) => !user.system && user.name.length > 0)
    .map((user) => ({ user, key: user.name.toLowerCase(), length: user.name.length }))
    .sort((a, b) => b.length - a.length);
  const found = new Map<string, UserRow>();
  for (let at = text.indexOf('@'); at !== -1; at = text.indexOf('@', at + 1)) {
    const start = at + 1;
    for (const candidate of candidates) {
      const end = start + candidate.length;
      if (end > text.length) continue;
      if (text.slice(start, end).toLowerCase() !== candidate.key) continue;
      const next = text.codePointAt(end);
      if (next !== undefined && CONTINUES_NAME.test(String.fromCodePoint(next))) continue;
      if (!found.has(candidate.user.id)) found.set(candidate.user.id, candidate.user);
      break;
    }
  }
  return [...found.values()];
}
