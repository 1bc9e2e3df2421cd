/** Request bodies of the accounts routes. Unknown keys are ignored so newer clients keep working. */
import { z } from 'zod';

const accessList = z.array(z.string().max(255)).max(10_000);

const userFields = {
  avatarInitials: z.string().optional(),
  avatarColor: z.string().optional(),
  collectionAccess: accessList.optional(),
  environmentAccess: accessList.optional(),
  snippetAccess: accessList.optional(),
  liveServerAccess: accessList.optional(),
  livePageAccess: accessList.optional(),
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

export const createTokenBody = z.object({ name: z.string() });
