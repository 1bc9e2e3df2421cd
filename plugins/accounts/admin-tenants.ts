/**
 * `/admin/tenants`: list, create and delete tenants over HTTP, as `workspace-hub tenant` does on
 * the command line (the same service, the same rules). Tenants are the operator's, so only
 * administrators of the default tenant may use these routes (kernel/http/operator.ts); with
 * multitenancy off they answer 404. Creating a tenant may also make its first administrator,
 * whose token is answered once: nobody else could sign in to an empty tenant over HTTP.
 */
import { z } from 'zod';
import type { HubConfig } from '../../kernel/config/load.ts';
import { badRequest, conflict, HttpError, notFound } from '../../kernel/errors.ts';
import { requireOperator } from '../../kernel/http/operator.ts';
import { pathId } from '../../kernel/http/params.ts';
import { jsonBody } from '../../kernel/http/validate.ts';
import type { Identity } from '../../kernel/identity/identity.ts';
import {
  DEFAULT_TENANT_ID,
  toTenantRecord,
  validateTenantId,
} from '../../kernel/identity/tenants.ts';
import { toTokenRecord } from '../../kernel/identity/tokens.ts';
import { normalizeUserName, toUserRecord } from '../../kernel/identity/users.ts';
import { createMiddleware } from 'hono/factory';
import { createPluginApp, type KernelEnv } from '../../kernel/plugin.ts';
import type { Store } from '../../kernel/storage/contract.ts';
import { actingAs, type StoreContext } from '../../kernel/storage/context.ts';
import { hasUnsafeNameChars, UNSAFE_NAME_MESSAGE } from '../../kernel/text.ts';

/** The 404 of every tenant route while multitenancy is off. */
export const MULTITENANCY_OFF =
  'Not Found: multitenancy is off (multitenancy.enabled in server.yaml), so this hub has only its default tenant.';

export const createTenantBody = z.object({
  id: z.string(),
  name: z.string(),
  adminName: z
    .string()
    .optional()
    .describe('Make the first administrator of the tenant with this name (its token is answered)'),
});

/** A 400 of a shared rule (which may name another field, or none), for the field it concerns. */
function asField<T>(field: string, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (!(error instanceof HttpError) || error.status !== 400) throw error;
    throw badRequest(`${field}: ${error.message.replace(/^name: /, '')}`);
  }
}

export function adminTenantRoutes(
  identity: Identity,
  hubConfig: () => HubConfig,
  storage: (tenantId: string, context: StoreContext) => Store,
) {
  const { tenants, users, tokens } = identity;
  const enabled = createMiddleware<KernelEnv>(async (_c, next) => {
    if (!hubConfig().multitenancy.enabled) throw notFound(MULTITENANCY_OFF);
    await next();
  });

  return createPluginApp()
    .get('/admin/tenants', enabled, requireOperator, async (c) => {
      return c.json({ tenants: (await tenants.list()).map(toTenantRecord) });
    })
    .post('/admin/tenants', enabled, requireOperator, jsonBody(createTenantBody), async (c) => {
      const body = c.req.valid('json');
      // Every field is checked before anything is written.
      const id = asField('id', () => validateTenantId(body.id));
      if (id === DEFAULT_TENANT_ID)
        throw badRequest(`id: The tenant "${DEFAULT_TENANT_ID}" is reserved and always exists.`);
      if (!body.name.trim()) throw badRequest('name: Tenant name must not be empty.');
      if (hasUnsafeNameChars(body.name))
        throw badRequest(`name: Tenant name ${UNSAFE_NAME_MESSAGE}.`);
      const adminName =
        body.adminName === undefined || body.adminName.trim() === ''
          ? null
          : asField('adminName', () => normalizeUserName(body.adminName!));
      if (await tenants.get(id)) throw conflict(`id: A tenant with id "${id}" already exists.`);
      // The request's audit scope, for the operator's log and the new tenant's alike.
      const acting = actingAs(c.get('auditScope'));
      const tenant = await tenants.create(id, body.name, acting);
      if (adminName === null) return c.json({ tenant: toTenantRecord(tenant) }, 201);
      try {
        // In the new tenant, under the caller's audit scope: its log says who made the account.
        const store = storage(id, acting);
        const admin = await store.transaction(async (tx) => {
          const user = await users.create(tx, { name: adminName, role: 'admin' });
          return { user, ...(await tokens.issue(tx, user, user.name)) };
        });
        return c.json(
          {
            tenant: toTenantRecord(tenant),
            admin: {
              user: toUserRecord(admin.user),
              token: toTokenRecord(admin.token),
              secret: admin.secret,
            },
          },
          201,
        );
      } catch (error) {
        // A tenant without the administrator asked for is not what was asked: it goes again.
        await tenants.delete(id, acting);
        throw error;
      }
    })
    .delete('/admin/tenants/:id', enabled, requireOperator, async (c) => {
      const id = pathId(c, 'id', 'Tenant not found');
      await tenants.delete(id, actingAs(c.get('auditScope')));
      return c.body(null, 204);
    });
}
