/**
 * Comment bodies: what a create, reply or edit may send and what gets stored. Plaintext hubs take a
 * trimmed `body`; E2EE hubs take an `encryptedPayload` whose ciphertext is stored in `body` and whose
 * other fields go to `bodyMetadata`. The hub mode is read per request, so a config reload applies at
 * once. Every refusal is a 400 (or 403 for an unknown device), never a storage error.
 */
import { z } from 'zod';
import { badRequest, forbidden } from '../../kernel/errors.ts';
import type { UserRow } from '../../kernel/identity/tables.ts';
import type { Store } from '../../kernel/storage/contract.ts';
import { formatIssues } from '../../kernel/http/validate.ts';
import { findActiveDevice } from '../mls-relay/index.ts';

/** Longest plaintext body, in UTF-16 units: a comment, not a document store. */
export const BODY_MAX = 65_536;
/** Longest ciphertext (inventory B.2). */
export const CIPHERTEXT_MAX = 262_144;
/** Refs and group ids are short identifiers; the cap keeps metadata rows small. */
const REF_MAX = 1024;

export const PLAINTEXT_REFUSED =
  'Plaintext discussion bodies are not accepted on this Team Hub. Encrypted payloads are required.';
export const ENCRYPTED_REFUSED =
  'Encrypted discussion payloads are only accepted on E2EE-enabled Team Hubs';
export const DEVICE_NOT_ENROLLED = 'Sender device is not enrolled on this Team Hub';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const EPOCH_MESSAGE = 'MLS epoch must be a non-negative integer';
const CIPHERTEXT_REQUIRED = 'Encrypted discussion ciphertext is required';
const GROUP_REQUIRED = 'MLS group id is required';

const payloadSchema = z.object(
  {
    ciphertext: z
      .string({ error: CIPHERTEXT_REQUIRED })
      .refine((value) => value.trim().length > 0, CIPHERTEXT_REQUIRED)
      .refine(
        (value) => value.length <= CIPHERTEXT_MAX,
        'Encrypted discussion ciphertext is too large',
      ),
    mlsGroupId: z
      .string({ error: GROUP_REQUIRED })
      .trim()
      .min(1, GROUP_REQUIRED)
      .max(REF_MAX, 'MLS group id is too long'),
    epoch: z
      .number({ error: EPOCH_MESSAGE })
      .int(EPOCH_MESSAGE)
      .min(0, EPOCH_MESSAGE)
      .max(Number.MAX_SAFE_INTEGER, EPOCH_MESSAGE),
    senderDeviceId: z
      .string({ error: 'Sender device id must be a UUID v4 value' })
      .regex(UUID_V4, 'Sender device id must be a UUID v4 value'),
    keyFormat: z.enum(['identity-v1', 'mls-v1'], {
      error: 'Unsupported encrypted discussion key format',
    }),
    commitRef: z.string().max(REF_MAX, `must be at most ${REF_MAX} characters`).nullish(),
    welcomeRef: z.string().max(REF_MAX, `must be at most ${REF_MAX} characters`).nullish(),
  },
  { error: 'Encrypted discussion payload must be an object' },
);

/** The body of create, reply and edit; which field is required depends on the hub mode. */
export const commentBody = z.object({
  body: z.string().nullish(),
  encryptedPayload: z.unknown().optional(),
});
export type CommentInput = z.output<typeof commentBody>;

/** The columns a body sets. */
export interface StoredBody {
  body: string;
  bodyFormat: 'plaintext' | 'encrypted';
  bodyMetadata: Record<string, unknown> | null;
  /** The trimmed plaintext, for mentions and the event; null when encrypted. */
  plaintext: string | null;
}

/** Validates the input for the hub mode and returns what to store. Async: E2EE checks the device. */
export async function parseBody(
  store: Store,
  user: UserRow,
  input: CommentInput,
  e2ee: boolean,
): Promise<StoredBody> {
  const hasPayload = input.encryptedPayload !== undefined && input.encryptedPayload !== null;
  if (!e2ee) {
    if (hasPayload) throw badRequest(ENCRYPTED_REFUSED);
    const text = (input.body ?? '').trim();
    if (!text) throw badRequest('body: Comment body is required');
    if (text.length > BODY_MAX)
      throw badRequest(`body: Comment body must be at most ${BODY_MAX} characters`);
    return { body: text, bodyFormat: 'plaintext', bodyMetadata: null, plaintext: text };
  }
  if ((input.body !== undefined && input.body !== null) || !hasPayload)
    throw badRequest(PLAINTEXT_REFUSED);
  const parsed = payloadSchema.safeParse(input.encryptedPayload);
  if (!parsed.success) {
    const message = formatIssues(parsed.error);
    throw badRequest(
      message.startsWith('Encrypted discussion payload must')
        ? `encryptedPayload: ${message}`
        : `encryptedPayload.${message}`,
    );
  }
  const payload = parsed.data;
  // Only a device the caller enrolled (and has not revoked) may sign comments as theirs.
  // Device ids are stored lower-case by the mls-relay plugin, whatever case the client enrolled.
  const device = await findActiveDevice(store, user.id, payload.senderDeviceId.toLowerCase());
  if (!device) throw forbidden(DEVICE_NOT_ENROLLED);
  const metadata: Record<string, unknown> = {
    version: 1,
    mlsGroupId: payload.mlsGroupId,
    epoch: payload.epoch,
    senderDeviceId: payload.senderDeviceId,
    keyFormat: payload.keyFormat,
  };
  if (typeof payload.commitRef === 'string') metadata.commitRef = payload.commitRef;
  if (typeof payload.welcomeRef === 'string') metadata.welcomeRef = payload.welcomeRef;
  return {
    body: payload.ciphertext,
    bodyFormat: 'encrypted',
    bodyMetadata: metadata,
    plaintext: null,
  };
}

/** The `encryptedPayload` of a stored encrypted body. */
export function toEncryptedPayload(
  body: string,
  metadata: Record<string, unknown> | null,
): Record<string, unknown> {
  const { version: _version, ...rest } = metadata ?? {};
  return { ciphertext: body, ...rest };
}
