/**
 * The tables of the `mls-relay` plugin: enrolled device keys, and the MLS commits, welcomes and
 * group epochs the hub relays between devices without ever reading them.
 */
import type { Migration } from '../../kernel/storage/contract.ts';
import { col, defineTable, type RowOfTable } from '../../kernel/storage/table.ts';

export const deviceKeysTable = defineTable({
  name: 'device_keys',
  columns: {
    id: col.id(),
    userId: col.id(),
    /** The device's own UUID v4, chosen by the client. */
    deviceId: col.id(),
    label: col.string(128),
    keyFormat: col.string(32),
    publicKeyMaterial: col.text(),
    /** Lower-case hex sha256 of the key material. */
    fingerprint: col.string(64),
    createdAt: col.timestamp(),
    lastSeenAt: col.timestampNullable(),
    revokedAt: col.timestampNullable(),
  },
  unique: [['userId', 'deviceId']],
  indexes: [['fingerprint'], ['deviceId']],
});

export const mlsCommitsTable = defineTable({
  name: 'discussion_mls_commits',
  columns: {
    id: col.id(),
    mlsGroupId: col.string(),
    epoch: col.int(),
    ciphertext: col.text(),
    senderDeviceId: col.id(),
    createdAt: col.timestamp(),
  },
  unique: [['mlsGroupId', 'epoch']],
});

export const mlsWelcomesTable = defineTable({
  name: 'discussion_mls_welcomes',
  columns: {
    id: col.id(),
    mlsGroupId: col.string(),
    recipientDeviceId: col.id(),
    ciphertext: col.text(),
    ratchetTree: col.text(),
    createdAt: col.timestamp(),
  },
  indexes: [
    ['mlsGroupId', 'createdAt'],
    ['mlsGroupId', 'recipientDeviceId'],
  ],
});

export const mlsGroupStateTable = defineTable({
  name: 'discussion_mls_group_state',
  columns: {
    id: col.id(),
    mlsGroupId: col.string(),
    currentEpoch: col.int(),
    createdAt: col.timestamp(),
    updatedAt: col.timestamp(),
  },
  unique: [['mlsGroupId']],
});

export type DeviceKeyRow = RowOfTable<typeof deviceKeysTable>;
export type MlsCommitRow = RowOfTable<typeof mlsCommitsTable>;
export type MlsWelcomeRow = RowOfTable<typeof mlsWelcomesTable>;
export type MlsGroupStateRow = RowOfTable<typeof mlsGroupStateTable>;

export const mlsTables = [deviceKeysTable, mlsCommitsTable, mlsWelcomesTable, mlsGroupStateTable];
export const mlsMigrations: Migration[] = [
  { id: 'mls-relay/0001-tables', createTables: mlsTables },
];
