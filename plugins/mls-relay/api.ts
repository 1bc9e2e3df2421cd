/** API docs of the device and MLS relay routes; bodies and queries come from the validators. */
import { z } from 'zod';
import type { RouteDocs } from '../../kernel/http/openapi.ts';

const deviceRecord = z
  .object({
    id: z.string(),
    userId: z.string(),
    deviceId: z.string(),
    label: z.string(),
    keyFormat: z.string(),
    fingerprint: z.string().describe('sha256 of the public key material, hex'),
    fingerprintPrefix: z.string(),
    createdAt: z.string(),
    lastSeenAt: z.string().nullable(),
    revokedAt: z.string().nullable(),
  })
  .meta({ id: 'Device' });
const devices = z.object({ devices: z.array(deviceRecord) });

const commitRecord = z
  .object({
    id: z.string(),
    mlsGroupId: z.string(),
    epoch: z.number().int(),
    ciphertext: z.string(),
    senderDeviceId: z.string(),
    createdAt: z.string(),
  })
  .meta({ id: 'MlsCommit' });
const welcomeRecord = z
  .object({
    id: z.string(),
    mlsGroupId: z.string(),
    recipientDeviceId: z.string(),
    ciphertext: z.string(),
    ratchetTree: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: 'MlsWelcome' });
const groupState = z.object({
  mlsGroupId: z.string(),
  currentEpoch: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const mlsRelayApi: RouteDocs = {
  'POST /devices': {
    summary: "Enroll one of the caller's devices (its public key)",
    responses: { 201: z.object({ device: deviceRecord }) },
  },
  'GET /devices': { summary: "The caller's devices, newest first", responses: { 200: devices } },
  'DELETE /devices/:id': {
    summary: "Revoke one of the caller's devices",
    responses: { 204: null },
  },
  'GET /admin/device-keys': { summary: 'Every enrolled device', responses: { 200: devices } },
  'GET /admin/users/:id/devices': { summary: "A user's devices", responses: { 200: devices } },
  'DELETE /admin/device-keys/:id': { summary: 'Revoke any device', responses: { 204: null } },
  'POST /discussion-mls/commits': {
    summary: 'Store an MLS commit for a group (one per epoch) from an enrolled device',
    description:
      "The group's first commit sets its epoch (at most 2^32, so a group always has room to move; a larger first epoch answers 409); every later commit must carry exactly the current epoch + 1. A commit that replays an epoch (equal or lower) or skips ahead answers 409 with a message naming the expected epoch, and nothing is stored.",
    errors: [403, 409],
    responses: { 201: commitRecord },
  },
  'GET /discussion-mls/commits': {
    summary: "A group's commits after an epoch, in epoch order",
    errors: [403],
    responses: {
      200: z.object({ commits: z.array(commitRecord), nextCursor: z.string().optional() }),
    },
  },
  'POST /discussion-mls/welcomes': {
    summary: 'Store an MLS welcome for a device',
    errors: [403],
    responses: { 201: welcomeRecord },
  },
  'GET /discussion-mls/welcomes': {
    summary: "Welcomes for one of the caller's devices",
    errors: [403],
    responses: {
      200: z.object({ welcomes: z.array(welcomeRecord), nextCursor: z.string().optional() }),
    },
  },
  'GET /discussion-mls/group-state/:mlsGroupId': {
    summary: "A group's current epoch",
    errors: [403],
    responses: { 200: groupState },
  },
};
