/**
 * Device keys: each user enrolls the public identity key of every device that takes part in
 * encrypted discussions, and may revoke it. Admins see and revoke every device of the tenant.
 * A revoked device stays listed (so users can see what was cut off) until the same device id is
 * enrolled again, which replaces the revoked record. Deleting an account deletes its devices.
 */
import type { Hono, MiddlewareHandler } from 'hono';
import { conflict, notFound } from '../../kernel/errors.ts';
import type { Clock } from '../../kernel/clock.ts';
import { newId, sha256Hex } from '../../kernel/identity/secrets.ts';
import { usersTable } from '../../kernel/identity/tables.ts';
import { lockCaller } from '../../kernel/identity/users.ts';
import type { KernelEnv } from '../../kernel/plugin.ts';
import { isUniqueViolation, type Store } from '../../kernel/storage/contract.ts';
import { enrollBody } from './schemas.ts';
import { deviceKeysTable, type DeviceKeyRow } from './tables.ts';
import { pathId } from '../../kernel/http/params.ts';
import { jsonBody } from '../../kernel/http/validate.ts';

const DEVICE_NOT_FOUND = 'Device not found';
const ALREADY_ENROLLED = 'This device is already enrolled.';
const NEWEST_FIRST = [
  ['createdAt', 'desc'],
  ['id', 'desc'],
] as const;

/** The device record clients see; the key material itself is never echoed back. */
export function toDeviceRecord(row: DeviceKeyRow) {
  return {
    id: row.id,
    userId: row.userId,
    deviceId: row.deviceId,
    label: row.label,
    keyFormat: row.keyFormat,
    fingerprint: row.fingerprint,
    fingerprintPrefix: row.fingerprint.slice(0, 8),
    createdAt: row.createdAt,
    lastSeenAt: row.lastSeenAt,
    revokedAt: row.revokedAt,
  };
}

/**
 * The caller's active (enrolled, not revoked) device with this client device id, or null.
 * `deviceId` must already be normalized by `deviceIdSchema` (lower case), as stored.
 */
export function findActiveDevice(
  store: Store,
  userId: string,
  deviceId: string,
): Promise<DeviceKeyRow | null> {
  return store.table(deviceKeysTable).findOne({ userId, deviceId, revokedAt: null });
}

/** Mounts `/devices*` and the admin device routes behind the E2EE gate. */
export function deviceRoutes(
  app: Hono<KernelEnv>,
  gate: MiddlewareHandler<KernelEnv>,
  clock: Clock,
): void {
  app.post('/devices', gate, jsonBody(enrollBody), async (c) => {
    const user = c.get('auth').user;
    const body = c.req.valid('json');
    const fingerprint = await sha256Hex(body.publicKeyMaterial);
    const now = clock.iso();
    const row: DeviceKeyRow = {
      id: newId(),
      userId: user.id,
      deviceId: body.deviceId,
      label: body.label,
      keyFormat: body.keyFormat,
      publicKeyMaterial: body.publicKeyMaterial,
      fingerprint,
      createdAt: now,
      lastSeenAt: null,
      revokedAt: null,
    };
    try {
      await c.get('store').transaction(async (tx) => {
        // The owner's row lock, as user deletion takes it (kernel/identity/users.ts): an
        // enrollment racing the deletion either lands first and is removed with the account, or
        // finds the account gone, and with it the token this request authenticated with.
        await lockCaller(tx, user.id);
        const devices = tx.table(deviceKeysTable);
        const existing = await devices.findOne({ userId: user.id, deviceId: body.deviceId });
        if (existing && existing.revokedAt === null) throw conflict(ALREADY_ENROLLED);
        // The unique key (tenant, user, deviceId) leaves room for one record per device, so a
        // revoked one gives way. The condition makes a concurrent re-enrollment lose cleanly.
        if (
          existing &&
          (await devices.deleteWhere({ id: existing.id, revokedAt: { ne: null } })) === 0
        ) {
          throw conflict(ALREADY_ENROLLED);
        }
        await devices.insert(row);
      });
    } catch (error) {
      // Two first enrollments of the same device at once: the loser hits the unique key.
      if (isUniqueViolation(error)) throw conflict(ALREADY_ENROLLED);
      throw error;
    }
    return c.json({ device: toDeviceRecord(row) }, 201);
  });

  app.get('/devices', gate, async (c) => {
    const store = c.get('store');
    const rows = await store
      .table(deviceKeysTable)
      .find({ where: { userId: c.get('auth').user.id }, orderBy: NEWEST_FIRST });
    return c.json({ devices: rows.map(toDeviceRecord) });
  });

  app.delete('/devices/:id', gate, async (c) => {
    const id = pathId(c, 'id', DEVICE_NOT_FOUND);
    // One conditional write: another user's device and an already revoked one look the same.
    const store = c.get('store');
    const changed = await store
      .table(deviceKeysTable)
      .updateWhere(
        { id, userId: c.get('auth').user.id, revokedAt: null },
        { revokedAt: clock.iso() },
      );
    if (changed === 0) throw notFound(DEVICE_NOT_FOUND);
    return c.body(null, 204);
  });

  app.get('/admin/device-keys', gate, async (c) => {
    const rows = await c.get('store').table(deviceKeysTable).find({ orderBy: NEWEST_FIRST });
    return c.json({ devices: rows.map(toDeviceRecord) });
  });

  app.get('/admin/users/:id/devices', gate, async (c) => {
    const userId = pathId(c, 'id', 'User not found');
    if (!(await c.get('store').table(usersTable).get(userId))) throw notFound('User not found');
    const store = c.get('store');
    const rows = await store
      .table(deviceKeysTable)
      .find({ where: { userId }, orderBy: NEWEST_FIRST });
    return c.json({ devices: rows.map(toDeviceRecord) });
  });

  app.delete('/admin/device-keys/:id', gate, async (c) => {
    const id = pathId(c, 'id', DEVICE_NOT_FOUND);
    const store = c.get('store');
    const changed = await store
      .table(deviceKeysTable)
      .updateWhere({ id, revokedAt: null }, { revokedAt: clock.iso() });
    if (changed === 0) throw notFound(DEVICE_NOT_FOUND);
    return c.body(null, 204);
  });
}
