/** Request bodies of the accounts routes. Unknown keys are ignored so newer clients keep working. */
import { z } from 'zod';
import { cursorQuery, optionalLimitQuery } from '../../kernel/http/paging.ts';
import { perEntityList } from '../../kernel/identity/access.ts';

const accessList = z.array(z.string().max(255)).max(10_000);

const userFields = {
  avatarInitials: z.string().optional(),
  avatarColor: z.string().optional(),
  ...perEntityList(() => accessList.optional()),
  llmAccess: z.boolean().optional(),
  llmModels: accessList.optional(),
  llmMonthlyTokenLimit: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullable().optional(),
};

export const createUserBody = z.object({
  name: z.string(),
  role: z.enum(['user', 'admin']).default('user'),
  ...userFields,
});

export const updateUserBody = z.object({
  name: z.string().optional(),
  role: z.enum(['user', 'admin']).optional(),
  /** A base64 image data URL, or null to remove the image (checked by the avatars plugin). */
  imageDataUrl: z.string().nullable().optional(),
  ...userFields,
});

/** Most days a token may last (ten years): `expiresInDays` of an admin's, `sso.tokenTtlDays`. */
export const MAX_TOKEN_DAYS = 3650;

export const createTokenBody = z.object({
  name: z.string(),
  expiresInDays: z
    .number()
    .int('must be a whole number of days')
    .min(1, 'must be at least 1 day')
    .max(MAX_TOKEN_DAYS, `must be at most ${MAX_TOKEN_DAYS} days`)
    .nullable()
    .optional()
    .describe(
      "Days until the token stops working; null: never. Without it, a user linked to single sign-on gets a token that expires after `sso.tokenTtlDays`, like a sign-in's, and anyone else one that never expires",
    ),
});

/** `GET /admin/tokens`: only these parameters; any other is a 400 naming it. */
export const listTokensQuery = z.strictObject({
  userId: z
    .string({ error: 'must be a single string' })
    .min(1, 'must not be empty')
    .max(128, 'must be at most 128 characters')
    .optional()
    .describe("Only this user's tokens"),
  limit: optionalLimitQuery().describe(
    'At most this many (1 to 100), with `nextCursor` when more follow; without it, all',
  ),
  cursor: cursorQuery('tokens').describe('`nextCursor` of the page before (with `limit`)'),
});
