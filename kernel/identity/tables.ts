/**
 * Kernel-owned tables: tenants, users, API tokens and hub state. Authentication needs them before
 * any plugin runs, so they live in the kernel rather than in a plugin.
 */
import { col, defineTable, type RowOfTable } from '../storage/table.ts';
import { perEntityList } from './access-lists.ts';

/** Tenants are global (not tenant-scoped): the tenant id is the row id. */
export const tenantsTable = defineTable({
  name: 'tenants',
  tenantScoped: false,
  columns: {
    id: col.id(),
    name: col.string(),
    avatarInitials: col.string(8),
    avatarColor: col.string(32),
    avatarImageUpdatedAt: col.timestampNullable(),
    createdAt: col.timestamp(),
    updatedAt: col.timestamp(),
  },
});

export const usersTable = defineTable({
  name: 'users',
  columns: {
    id: col.id(),
    name: col.string(),
    /** Lower-cased name: uniqueness is case-insensitive on every driver, as mentions are. */
    nameKey: col.string(),
    role: col.string(16),
    /** The internal system account: hidden from lists, never modified or given tokens. */
    system: col.bool(),
    avatarInitials: col.string(8),
    avatarColor: col.string(32),
    avatarImageUpdatedAt: col.timestampNullable(),
    /** One column per entity access list (access-lists.ts). */
    ...perEntityList(() => col.json<string[]>()),
    llmAccess: col.bool(),
    llmModels: col.json<string[]>(),
    llmMonthlyTokenLimit: col.intNullable(),
    createdAt: col.timestamp(),
    updatedAt: col.timestamp(),
  },
  unique: [['nameKey']],
});

export const apiTokensTable = defineTable({
  name: 'api_tokens',
  columns: {
    id: col.id(),
    /** Null only for legacy tokens until migration assigns them to the bootstrap user. */
    userId: col.idNullable(),
    name: col.string(),
    /** Lower-case hex sha256 of the whole secret; the secret itself is never stored. */
    tokenHash: col.string(64),
    tokenPrefix: col.string(16),
    createdAt: col.timestamp(),
    lastUsedAt: col.timestampNullable(),
    revokedAt: col.timestampNullable(),
    /** When the token stops working by itself (tokens issued through single sign-on); null never. */
    expiresAt: col.timestampNullable(),
  },
  unique: [['tokenHash']],
  // Refreshed once a minute per token in use: it must not empty the authentication cache each time.
  untracked: ['lastUsedAt'],
  indexes: [['userId']],
});

/** Small global facts the hub must remember, e.g. that the first admin was created. */
export const hubStateTable = defineTable({
  name: 'hub_state',
  tenantScoped: false,
  columns: {
    id: col.id(),
    value: col.json<unknown>(),
    updatedAt: col.timestamp(),
  },
});

export type TenantRow = RowOfTable<typeof tenantsTable>;
export type UserRow = RowOfTable<typeof usersTable>;
export type ApiTokenRow = RowOfTable<typeof apiTokensTable>;
