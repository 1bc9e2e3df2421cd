/**
 * Tenant resolution: `X-Hub-Tenant`, or the desktop client's `X-Harbor-Tenant`; blank or missing
 * means `__default__`. Other tenants need `multitenancy.enabled` and must exist.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { badRequest, notFound } from '../errors.ts';
import type { KernelEnv } from '../plugin.ts';
import { describeMiddleware } from './openapi-routes.ts';
import type { StorageDriver } from '../storage/contract.ts';
import type { TenantRow } from '../identity/tables.ts';
import { DEFAULT_TENANT_ID, validateTenantId, type TenantsService } from '../identity/tenants.ts';
import { requestContext } from '../cache.ts';

/** Tenants change rarely; a short cache keeps the lookup off the hot path. */
const CACHE_MS = 5_000;

export interface TenantCache {
  get(id: string): Promise<TenantRow | null>;
  /** The row while it is kept (no promise), else undefined: ask `get`. */
  peek(id: string): TenantRow | undefined;
  invalidate(id?: string): void;
}

export function createTenantCache(
  tenants: () => TenantsService,
  now = () => Date.now(),
): TenantCache {
  const entries = new Map<string, { row: TenantRow; expires: number }>();
  const peek = (id: string) => {
    const hit = entries.get(id);
    return hit && hit.expires > now() ? hit.row : undefined;
  };
  return {
    peek,
    async get(id) {
      const hit = peek(id);
      if (hit) return hit;
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
  const enter = (c: Context<KernelEnv>, id: string, tenant: TenantRow | null) => {
    if (!tenant) throw notFound('Tenant not found');
    c.set('tenant', tenant);
    // Made as the request arrives, with its context: its cache lookups share one proof
    // (cache.ts), and what it writes names the request (audit.ts).
    c.set('store', deps.driver().forTenant(id, requestContext(c.get('auditScope'))));
  };
  // Not async: a tenant the cache holds (nearly every request) costs no promise here.
  const middleware: MiddlewareHandler<KernelEnv> = (c, next) => {
    const id = tenantHeader((name) => c.req.header(name));
    if (id !== DEFAULT_TENANT_ID && !deps.multitenancy()) {
      throw badRequest('Multitenancy is disabled; only the default tenant is available.');
    }
    const kept = deps.cache.peek(id);
    if (kept) {
      enter(c, id, kept);
      return next();
    }
    return deps.cache.get(id).then((tenant) => {
      enter(c, id, tenant);
      return next();
    });
  };
  // A bad header (400), an unknown tenant (404); the store it hands on may be down (503) and, on a
  // write, keep losing a race to a concurrent one (409).
  return describeMiddleware(middleware, { errors: [400, 404, 503], writeErrors: [409] });
}
