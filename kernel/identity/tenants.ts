/**
 * Tenants: the reserved `__default__` tenant always exists; others exist only with
 * `multitenancy.enabled`. Every tenant has its own internal `system` account.
 */
import { badRequest, notFound } from '../errors.ts';
import { hasUnsafeNameChars, UNSAFE_NAME_MESSAGE } from '../text.ts';
import type { AuditSink } from '../audit.ts';
import type { Clock } from '../clock.ts';
import type { StorageDriver } from '../storage/contract.ts';
import type { StoreContext } from '../storage/context.ts';
import type { Table } from '../storage/table.ts';
import { defaultColor, defaultInitials } from './avatar-defaults.ts';
import { newId } from './secrets.ts';
import { tenantsTable, usersTable, type TenantRow, type UserRow } from './tables.ts';
import { SYSTEM_USER_NAME } from './users.ts';
import { tenantEvent } from './audit-events.ts';
import { perEntityList } from './access-lists.ts';

export const DEFAULT_TENANT_ID = '__default__';
export const DEFAULT_HUB_NAME = 'Workspace Hub';
const TENANT_ID = /^[A-Za-z0-9_-]+$/;

/** The tenant fields the CLI prints and `/admin/tenants` answers. */
export function toTenantRecord(row: TenantRow) {
  return {
    id: row.id,
    name: row.name,
    avatarInitials: row.avatarInitials,
    avatarColor: row.avatarColor,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** Checks a tenant id as sent in a header or on the command line; returns it trimmed. */
export function validateTenantId(raw: string): string {
  const id = raw.trim();
  if (!id) throw badRequest('Tenant id must not be empty.');
  if (id.length > 64) throw badRequest('Tenant id must be at most 64 characters.');
  if (!TENANT_ID.test(id))
    throw badRequest('Tenant id may only contain letters, digits, underscores, and hyphens.');
  return id;
}

export function createTenantsService({
  driver,
  clock,
  tables,
  audit,
}: {
  driver: () => StorageDriver;
  clock: Clock;
  tables: () => readonly Table[];
  /** Tenant creations and deletions are recorded in the default tenant's log (the operator's). */
  audit?: AuditSink;
}) {
  /** Records in the operator's log as the work of `context` (the request's or the command's). */
  const operatorLog = (event: ReturnType<typeof tenantEvent>, context?: StoreContext) =>
    audit?.record(driver().forTenant(DEFAULT_TENANT_ID, context), event);
  const global = () => driver().unscoped().table(tenantsTable);

  /** Creates the tenant row (if missing) and its system account (if missing). */
  async function ensure(id: string, name: string): Promise<TenantRow> {
    const now = clock.iso();
    let tenant = await global().get(id);
    if (!tenant) {
      tenant = {
        id,
        name,
        avatarInitials: defaultInitials(name),
        avatarColor: defaultColor(id),
        avatarImageUpdatedAt: null,
        createdAt: now,
        updatedAt: now,
      };
      try {
        await global().insert(tenant);
      } catch {
        // Another process created it at the same moment.
        tenant = (await global().get(id))!;
      }
    }
    const store = driver().forTenant(id);
    const system = await store.table(usersTable).findOne({ system: true });
    if (!system) {
      const row: UserRow = {
        id: newId(),
        name: SYSTEM_USER_NAME,
        nameKey: SYSTEM_USER_NAME,
        role: 'admin',
        system: true,
        avatarInitials: 'SY',
        avatarColor: 'indigo-600',
        avatarImageUpdatedAt: null,
        ...perEntityList(() => []),
        llmAccess: false,
        llmModels: [],
        llmMonthlyTokenLimit: null,
        createdAt: now,
        updatedAt: now,
      };
      await store
        .table(usersTable)
        .insert(row)
        .catch(() => undefined);
    }
    return tenant;
  }

  return {
    ensure,
    ensureDefault: () => ensure(DEFAULT_TENANT_ID, DEFAULT_HUB_NAME),
    get: (id: string) => global().get(id),
    list: () => global().find({ orderBy: [['id', 'asc']] }),

    /** Creates a tenant; its audit event is the work of `context` (who asked). */
    async create(rawId: string, rawName: string, context?: StoreContext): Promise<TenantRow> {
      const id = validateTenantId(rawId);
      if (id === DEFAULT_TENANT_ID)
        throw badRequest(`The tenant "${DEFAULT_TENANT_ID}" is reserved and always exists.`);
      const name = rawName.trim();
      if (!name) throw badRequest('Tenant name must not be empty.');
      if (hasUnsafeNameChars(name)) throw badRequest(`name: Tenant name ${UNSAFE_NAME_MESSAGE}.`);
      if (await global().get(id)) throw badRequest(`A tenant with id "${id}" already exists.`);
      const tenant = await ensure(id, name);
      await operatorLog(tenantEvent('tenant.created', tenant), context);
      return tenant;
    },

    /** Removes the tenant and every row it owns, in one transaction, as the work of `context`. */
    async delete(rawId: string, context?: StoreContext): Promise<TenantRow> {
      const id = validateTenantId(rawId);
      if (id === DEFAULT_TENANT_ID)
        throw badRequest(`The tenant "${DEFAULT_TENANT_ID}" cannot be deleted.`);
      const tenant = await global().get(id);
      if (!tenant) throw notFound(`No tenant found with id "${id}".`);
      await driver()
        .forTenant(id)
        .transaction(async (tx) => {
          for (const table of tables())
            if (table.tenantScoped) await tx.table(table).deleteWhere({});
          await tx.table(tenantsTable).delete(id);
        });
      await operatorLog(tenantEvent('tenant.deleted', tenant), context);
      return tenant;
    },
  };
}

export type TenantsService = ReturnType<typeof createTenantsService>;
