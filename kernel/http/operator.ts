/**
 * Routes that concern the whole hub rather than one tenant (its configuration, its tenants) are
 * the operator's: with multitenancy, only administrators of the default tenant — where the hub's
 * first administrator is made and where tenant changes are audited — may use them. An
 * administrator of another tenant runs that tenant, not the server it shares.
 */
import { createMiddleware } from 'hono/factory';
import { forbidden } from '../errors.ts';
import { DEFAULT_TENANT_ID } from '../identity/tenants.ts';
import type { KernelEnv } from '../plugin.ts';
import { describeMiddleware } from './openapi-routes.ts';

/** The 403 an administrator of another tenant gets. */
export const OPERATOR_ONLY =
  'Forbidden: this concerns the whole hub; only administrators of the default tenant may use it.';

/** Lets through requests of the default tenant only (after the admin guard of `/admin/*`). */
export const requireOperator = describeMiddleware(
  createMiddleware<KernelEnv>(async (c, next) => {
    if (c.get('tenant').id !== DEFAULT_TENANT_ID) throw forbidden(OPERATOR_ONLY);
    await next();
  }),
  { errors: [403], note: 'Only administrators of the default tenant.' },
);
