/**
 * The kernel's schema steps and the provisioning that runs after every migration: the default
 * tenant, a system account per tenant, and owners for legacy tokens. Provisioning never widens the
 * access of an existing account.
 */
import { isUniqueViolation, type Migration, type StorageDriver } from '../storage/contract.ts';
import type { Table } from '../storage/table.ts';
import type { Clock } from '../clock.ts';
import type { Logger } from '../log.ts';
import type { Identity } from './identity.ts';
import { readFile } from 'node:fs/promises';
import { ConfigError } from '../config/errors.ts';
import { chosenSecret, newId, type IssuedSecret } from './secrets.ts';
import {
  apiTokensTable,
  hubStateTable,
  tenantsTable,
  usersTable,
  type ApiTokenRow,
  type UserRow,
} from './tables.ts';
import { CHANGE_SEQUENCE_MIGRATION } from '../storage/changes.ts';
import { BOOTSTRAP_USER_NAME } from './users.ts';
import { DEFAULT_TENANT_ID } from './tenants.ts';
import { perEntityList } from './access-lists.ts';
import { WILDCARD } from './access.ts';

export const kernelMigrations: Migration[] = [
  {
    id: 'kernel/0001-identity',
    createTables: [tenantsTable, usersTable, apiTokensTable, hubStateTable],
  },
  // Tokens may carry an expiry (single sign-on issues them for `sso.tokenTtlDays`).
  {
    id: 'kernel/0003-token-expiry',
    addColumns: [{ table: apiTokensTable, columns: ['expiresAt'] }],
  },
];

/**
 * Tables created before change stamps existed get their trigger here (PostgreSQL; a no-op
 * elsewhere); tables created later get it with the table. Listed after every plugin's migrations,
 * since it names every table the hub declares — and only those, never another application's
 * tables in a shared schema.
 */
export function changeFeedMigration(tables: readonly Table[]): Migration {
  return { id: 'kernel/0002-change-feed', changeFeed: tables };
}

/**
 * The change sequence of the drivers without a feed (MySQL: counter rows and triggers; Firestore:
 * counter documents), on every table the hub declares; PostgreSQL renews its triggers.
 */
export function changeSequenceMigration(tables: readonly Table[]): Migration {
  return { id: CHANGE_SEQUENCE_MIGRATION, changeFeed: tables };
}

export const kernelTables = [tenantsTable, usersTable, apiTokensTable, hubStateTable];

/** Gives tokens without an owner to a `bootstrap` user with `*` on every access list. */
async function adoptOwnerlessTokens(
  driver: StorageDriver,
  clock: Clock,
  log: Logger,
): Promise<number> {
  const orphans = (await driver
    .unscoped()
    .table(apiTokensTable)
    .find({ where: { userId: null } })) as (ApiTokenRow & { tenantId: string })[];
  const byTenant = new Map<string, ApiTokenRow[]>();
  for (const token of orphans)
    byTenant.set(token.tenantId, [...(byTenant.get(token.tenantId) ?? []), token]);
  for (const [tenantId, tokens] of byTenant) {
    const store = driver.forTenant(tenantId);
    await store.transaction(async (tx) => {
      let owner = await tx.table(usersTable).findOne({ nameKey: BOOTSTRAP_USER_NAME });
      if (!owner) {
        const now = clock.iso();
        const row: UserRow = {
          id: newId(),
          name: BOOTSTRAP_USER_NAME,
          nameKey: BOOTSTRAP_USER_NAME,
          role: 'user',
          system: false,
          avatarInitials: 'B',
          avatarColor: 'amber-600',
          avatarImageUpdatedAt: null,
          ...perEntityList(() => [WILDCARD]),
          llmAccess: false,
          llmModels: [],
          llmMonthlyTokenLimit: null,
          createdAt: now,
          updatedAt: now,
        };
        owner = await tx.table(usersTable).insert(row);
      }
      for (const token of tokens)
        await tx.table(apiTokensTable).update(token.id, { userId: owner.id });
    });
    log.info('Assigned legacy tokens without an owner to the bootstrap user', {
      tenantId,
      tokens: tokens.length,
    });
  }
  return orphans.length;
}

export async function provision(
  driver: StorageDriver,
  identity: Identity,
  clock: Clock,
  log: Logger,
): Promise<void> {
  await identity.tenants.ensureDefault();
  for (const tenant of await identity.tenants.list())
    await identity.tenants.ensure(tenant.id, tenant.name);
  await adoptOwnerlessTokens(driver, clock, log);
}

const FIRST_ADMIN_KEY = 'first-admin-created';

/** The environment variable naming a file that holds the first admin's token (see the README). */
export const ADMIN_TOKEN_FILE_ENV = 'WORKSPACE_HUB_ADMIN_TOKEN_FILE';

/** The token in `path`: one `hbk_…` secret, surrounding whitespace ignored. */
async function readAdminTokenFile(path: string): Promise<IssuedSecret> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ConfigError(
      `${ADMIN_TOKEN_FILE_ENV}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`,
    );
  }
  const chosen = chosenSecret('hbk', text.trim());
  if (!chosen)
    throw new ConfigError(
      `${ADMIN_TOKEN_FILE_ENV}: ${path} must hold one token: "hbk_" followed by 32 to 512 letters, digits, "-" or "_" (e.g. hbk_ and the output of "openssl rand -hex 32").`,
    );
  return chosen;
}

/**
 * On a hub with no accounts yet, creates the admin account `admin` with one token and returns its
 * secret. Remembered in hub_state, so it happens once in the life of a database. With
 * `tokenFile`, the token is the secret that file holds (`chosen` is then true and the secret must
 * not be printed); the file is read only when the account is created, and a bad file stops
 * start-up before anything is written.
 */
export async function ensureFirstAdmin(
  driver: StorageDriver,
  identity: Identity,
  clock: Clock,
  tokenFile?: string,
): Promise<{ user: UserRow; secret: string; chosen: boolean } | null> {
  if (await driver.unscoped().table(hubStateTable).get(FIRST_ADMIN_KEY)) return null;
  const chosen = tokenFile ? await readAdminTokenFile(tokenFile) : undefined;
  const store = driver.forTenant(DEFAULT_TENANT_ID);
  try {
    return await store.transaction(async (tx) => {
      // Claim first: when two instances start together on an empty shared database, the second
      // waits on this row and then finds it taken, instead of tripping over the admin's name.
      await tx
        .table(hubStateTable)
        .insert({ id: FIRST_ADMIN_KEY, value: { userId: null }, updatedAt: clock.iso() });
      if ((await tx.table(usersTable).count({ system: false })) > 0) return null;
      const user = await identity.users.create(tx, { name: 'admin', role: 'admin' });
      const { secret } = await identity.tokens.issue(tx, user, 'admin', chosen);
      await tx.table(hubStateTable).update(FIRST_ADMIN_KEY, { value: { userId: user.id } });
      return { user, secret, chosen: chosen !== undefined };
    });
  } catch (error) {
    if (isUniqueViolation(error)) return null;
    throw error;
  }
}
