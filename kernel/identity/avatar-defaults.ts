/** Default avatar initials and colours for users and hubs. */

/** The colour keys the desktop client knows (a colour name and a shade joined by a hyphen). */
export const AVATAR_PALETTE = [
  'sky-600',
  'violet-600',
  'emerald-600',
  'amber-600',
  'rose-600',
  'cyan-600',
  'indigo-600',
  'teal-600',
] as const;
export type AvatarColor = (typeof AVATAR_PALETTE)[number];

/** Up to two upper-case letters from the first words of a name; `?` has no letters, so `U`. */
export function defaultInitials(name: string): string {
  const words = name
    .trim()
    .split(/[\s._-]+/u)
    .filter(Boolean);
  const letters = words
    .map((word) => [...word].find((ch) => /\p{L}/u.test(ch)))
    .filter((ch): ch is string => !!ch);
  const initials = (
    letters.length >= 2 ? letters[0]! + letters[1]! : (letters[0] ?? 'U')
  ).toUpperCase();
  return initials;
}

/** A stable palette colour for a seed (a name or id), so an account keeps its colour. */
export function defaultColor(seed: string): AvatarColor {
  let hash = 0;
  for (const ch of seed) hash = (hash * 31 + ch.codePointAt(0)!) >>> 0;
  return AVATAR_PALETTE[hash % AVATAR_PALETTE.length]!;
}
