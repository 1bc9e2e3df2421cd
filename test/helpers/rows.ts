/** Rows written straight into a hub's tables, for state no route of the test's plugins creates. */
import type { Store } from '../../kernel/storage/contract.ts';
import { deviceKeysTable } from '../../plugins/mls-relay/tables.ts';

/** An enrolled (or, with `revoked`, revoked) MLS device of `userId`; returns its device id. */
export async function insertDeviceKey(
  store: Store,
  userId: string,
  { revoked = false } = {},
): Promise<string> {
  const deviceId = crypto.randomUUID();
  const now = new Date().toISOString();
  await store.table(deviceKeysTable).insert({
    id: crypto.randomUUID(),
    userId,
    deviceId,
    label: 'laptop',
    keyFormat: 'mls-v1',
    publicKeyMaterial: 'key',
    fingerprint: 'a'.repeat(64),
    createdAt: now,
    lastSeenAt: null,
    revokedAt: revoked ? now : null,
  });
  return deviceId;
}
