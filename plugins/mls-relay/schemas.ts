/**
 * Request shapes of the device and relay routes, and the E2EE gate in front of them. Every bound
 * here exists so that no client value reaches the database oversized or malformed: a violation is
 * a 400 naming the field, never a driver error.
 */
import { z } from 'zod';
import { notFound } from '../../kernel/errors.ts';
import { describeMiddleware } from '../../kernel/http/openapi.ts';
import { factory } from '../../kernel/plugin.ts';
import type { HubConfig } from '../../kernel/config/load.ts';
import { cursorQuery, limitQuery, MAX_LIMIT } from '../../kernel/http/paging.ts';

/** The exact message the desktop client probes for to learn that the E2EE device flow is off. */
export const E2EE_OFF =
  'Device enrollment is only available on Team Hubs with discussion E2EE enabled.';

/**
 * 404 unless `collaboration.e2ee` is on. The config is read on every request because a reload
 * may switch it without re-mounting routes.
 */
export const requireE2ee = (hubConfig: () => HubConfig) =>
  describeMiddleware(
    factory.createMiddleware(async (_c, next) => {
      if (!hubConfig().collaboration.e2ee) throw notFound(E2EE_OFF);
      await next();
    }),
    { errors: [404], note: 'Only on hubs with `collaboration.e2ee: true`; 404 otherwise.' },
  );

/** Longest MLS group id: the relay tables store it in a 255-character column. */
export const GROUP_ID_MAX = 255;
/** Longest commit or welcome ciphertext and ratchet tree, in characters. */
export const CIPHERTEXT_MAX = 262_144;
/** Longest device label, in characters (code points, as the database counts them). */
export const LABEL_MAX = 128;
/** Longest public key material, in characters. */
export const KEY_MATERIAL_MAX = 65_536;
export const KEY_FORMATS = ['identity-v1', 'mls-key-package'] as const;

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const noNul = (value: string) => !value.includes('\u0000');

/**
 * A client-chosen device id: a UUID v4, stored lower-case so `ABC…` and `abc…` are one device.
 * Look-ups go through the same schema, so they always compare like with like.
 */
export const deviceIdSchema = z
  .string()
  .trim()
  .regex(UUID_V4, 'must be a UUID v4 value')
  .transform((value) => value.toLowerCase());

/** An MLS group id as sent; whether it names a discussion target is checked by the handler. */
export const groupIdSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(GROUP_ID_MAX, `must be at most ${GROUP_ID_MAX} characters`)
  .refine(noNul, 'must not contain NUL characters');

/** Opaque ciphertext: kept exactly as sent, but never blank. */
export const ciphertextSchema = z
  .string()
  .max(CIPHERTEXT_MAX, `must be at most ${CIPHERTEXT_MAX} characters`)
  .refine((value) => value.trim().length > 0, 'must not be empty');

const codePoints = (value: string) => [...value].length;

export const enrollBody = z.object({
  deviceId: deviceIdSchema,
  label: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .refine((value) => codePoints(value) <= LABEL_MAX, `must be at most ${LABEL_MAX} characters`),
  publicKeyMaterial: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(KEY_MATERIAL_MAX, `must be at most ${KEY_MATERIAL_MAX} characters`),
  keyFormat: z
    .enum(KEY_FORMATS, { error: `must be one of ${KEY_FORMATS.join(', ')}` })
    .default('identity-v1'),
});

export const commitBody = z.object({
  mlsGroupId: groupIdSchema,
  // Epochs are stored as 64-bit integers but travel as JavaScript numbers: stay exact.
  epoch: z
    .number()
    .int('must be an integer')
    .min(0, 'must be at least 0')
    .max(Number.MAX_SAFE_INTEGER, 'is too large'),
  ciphertext: ciphertextSchema,
  senderDeviceId: deviceIdSchema,
});

export const welcomeBody = z.object({
  mlsGroupId: groupIdSchema,
  recipientDeviceId: deviceIdSchema,
  ciphertext: ciphertextSchema,
  ratchetTree: ciphertextSchema,
});

/** A decimal epoch in a query string; 16 digits cover every safe integer. */
const epochText = z
  .string()
  .regex(/^\d{1,16}$/, 'must be a non-negative decimal integer')
  .transform(Number)
  .refine((value) => value <= Number.MAX_SAFE_INTEGER, 'is too large');

export const commitsQuery = z.object({
  mlsGroupId: groupIdSchema,
  cursor: epochText.optional(),
  limit: limitQuery(MAX_LIMIT),
});

/** Welcomes page by (createdAt, id) with the shared keyset cursor. */
export const welcomesQuery = z.object({
  mlsGroupId: groupIdSchema,
  recipientDeviceId: deviceIdSchema.optional(),
  cursor: cursorQuery('welcome list'),
  limit: limitQuery(MAX_LIMIT),
});
