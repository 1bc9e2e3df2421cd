/**
 * Tenant resolution: `X-Hub-Tenant`, or the desktop client's `X-Harbor-Tenant`; blank or missing
 * means `__default__`. Other tenants need `multitenancy.enabled` and must exist.
 */
import { createMiddleware } from 'hono/factory';
import { badRequest, notFound } from '../errors.ts';
import type { KernelEnv } from '../plugin.ts';
import { describeMiddleware } from './openapi-routes.ts';
import type { StorageDriver } from '../storage/contract.ts';
import type { TenantRow } from '../identity/tables.ts';
import { DEFAULT_TENANT_ID, validateTenantId, type TenantsService } from '../identity/tenants.ts';
import { requestStore } from '../cache.ts';
import { scopedStore } from '../audit.ts';

/** Tenants change rarely; a short cache keeps the lookup off the hot path. */
const CACHE_MS = 5_000;

export interface TenantCache {
  get(id: string): Promise<TenantRow | null>;
  invalidate(id?: string): void;
}

export function createTenantCache(
  tenants: () => TenantsService,
  now = () => Date.now(),
): TenantCache {
  const entries = new Map<string, { row: TenantRow; expires: number }>();
  return {
    async get(id) {
      const hit = entries.get(id);
      if (hit && hit.expires > now()) return hit.row;
      const row = await tenants().get(id);
      if (row) entries.set(id, { row, expires: now() + CACHE_MS });
      else entries.delete(id);
      return row;
    },
    invalidate(id) {
      if (id === undefined) entries.clear();
      else entries.delete(id);
    },
  };
}

export function tenantHeader(header: (name: string) => string | undefined): string {
  const raw = header('x-hub-tenant') ?? header('x-harbor-tenant');
  return raw === undefined || raw.trim() === '' ? DEFAULT_TENANT_ID : validateTenantId(raw);
}

export function resolveTenant(deps: {
  multitenancy: () => boolean;
  cache: TenantCache;
  driver: () => StorageDriver;
}) {
  const middleware = createMiddleware<KernelEnv>(async (c, next) => {
    const id = tenantHeader((name) => c.req.header(name));
    if (id !== DEFAULT_TENANT_ID && !deps.multitenancy()) {
      throw badRequest('Multitenancy is disabled; only the default tenant is available.');
    }
    const tenant = await deps.cache.get(id);
    if (!tenant) throw notFound('Tenant not found');
    c.set('tenant', tenant);
    // Made as the request arrives: its cache lookups share one proof (cache.ts), and what it
    // writes names the request (audit.ts).
    c.set('store', requestStore(scopedStore(deps.driver().forTenant(id), c.get('auditScope'))));
    await next();
  });
  // A bad header (400), an unknown tenant (404); the store it hands on may be down (503) and, on a
  // write, keep losing a race to a concurrent one (409).
  return describeMiddleware(middleware, { errors: [400, 404, 503], writeErrors: [409] });
}
