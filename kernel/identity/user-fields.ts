/** The rules of a user's own fields (name, initials, colour), shared by every way to set them. */
import { badRequest } from '../errors.ts';
import { hasUnsafeNameChars, UNSAFE_NAME_MESSAGE } from '../text.ts';
import { AVATAR_PALETTE } from './avatar-defaults.ts';

export const SYSTEM_USER_NAME = 'system';

export function normalizeUserName(raw: string): string {
  const name = raw.trim();
  if (!name) throw badRequest('name: User name must not be empty.');
  // Lower-casing can lengthen a name (İ → i̇), and the lower-cased key is stored too.
  if ([...name].length > 255 || [...name.toLowerCase()].length > 255)
    throw badRequest('name: User name must be at most 255 characters.');
  // Controls would act on the terminal that lists users, bidi overrides disguise the name.
  if (hasUnsafeNameChars(name)) throw badRequest(`name: User name ${UNSAFE_NAME_MESSAGE}.`);
  if (name.toLowerCase() === SYSTEM_USER_NAME)
    throw badRequest(
      `name: User name "${SYSTEM_USER_NAME}" is reserved for the internal system account.`,
    );
  return name;
}

export function normalizeInitials(raw: string): string {
  // Upper-case first: some letters become two (ß → SS), and the stored form must stay 1–2 letters.
  const initials = raw.trim().toUpperCase();
  const letters = [...initials];
  if (letters.length < 1 || letters.length > 2)
    throw badRequest('avatarInitials: Avatar initials must be one or two letters.');
  if (!letters.every((ch) => /\p{L}/u.test(ch)))
    throw badRequest('avatarInitials: Avatar initials must contain letters only.');
  return initials;
}

export function normalizeColor(raw: string): string {
  if (!(AVATAR_PALETTE as readonly string[]).includes(raw)) {
    throw badRequest(`avatarColor: Avatar colour must be one of ${AVATAR_PALETTE.join(', ')}.`);
  }
  return raw;
}
