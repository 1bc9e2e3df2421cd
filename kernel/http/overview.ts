/**
 * `GET /admin/overview`: the figures an administrator's overview shows that no other route
 * answers — how many users, tokens and records the tenant holds, the database driver, the read
 * cache's hit rate and which circuit breakers are open. Counts come from the plugins that own the
 * tables (`counts.ts`), so the kernel names no feature table; readiness stays
 * `GET /readyz`'s and the audit events `GET /admin/audit`'s.
 */
import { Hono } from 'hono';
import { z } from 'zod';
import type { CacheStats } from '../cache.ts';
import type { Circuit } from '../breaker.ts';
import type { KernelEnv } from '../plugin.ts';
import type { StorageDriver } from '../storage/contract.ts';
import type { ThrottleStore } from '../throttle/contract.ts';
import { HUB_VERSION } from '../version.ts';
import type { Counts } from './counts.ts';
import type { RouteDocs } from './openapi.ts';

export interface OverviewDeps {
  driver: () => StorageDriver;
  throttle: () => ThrottleStore;
  cacheStats: () => CacheStats;
  counts: Counts;
}

/** The read cache's share of lookups answered from memory since start; null before any lookup. */
function hitRate({ hits, misses }: CacheStats): number | null {
  const total = hits + misses;
  return total === 0 ? null : Math.round((hits / total) * 1000) / 1000;
}

export function overviewRoutes(deps: OverviewDeps): Hono<KernelEnv> {
  return new Hono<KernelEnv>().get('/admin/overview', async (c) => {
    const driver = deps.driver();
    const circuits = [driver.circuit, deps.throttle().circuit].filter(
      (circuit): circuit is Circuit => circuit !== undefined,
    );
    const stats = deps.cacheStats();
    c.header('Cache-Control', 'no-store');
    return c.json({
      version: HUB_VERSION,
      database: driver.kind,
      counts: await deps.counts.all(c.get('store')),
      readCache: { hits: stats.hits, misses: stats.misses, hitRate: hitRate(stats) },
      circuits: circuits.map((circuit) => ({ name: circuit.name, open: circuit.isOpen() })),
    });
  });
}

export const overviewDocs: RouteDocs = {
  'GET /admin/overview': {
    summary: 'Counts, database, read cache and circuit breakers, for the overview',
    description:
      "The tenant's counts (users without the system account, active tokens, and what plugins register: collections, requests, discussions), the database driver, this process's read-cache hits and misses since it started, and whether each dependency's circuit breaker is open. Readiness is `GET /readyz`; recent events are `GET /admin/audit`.",
    responses: {
      200: z.object({
        version: z.string(),
        database: z.string().describe('The database driver: sqlite, postgres, mysql or firestore'),
        counts: z.record(z.string(), z.number().int()),
        readCache: z.object({
          hits: z.number().int(),
          misses: z.number().int(),
          hitRate: z
            .number()
            .nullable()
            .describe('hits / (hits + misses), to three places; null before any lookup'),
        }),
        circuits: z.array(z.object({ name: z.string(), open: z.boolean() })),
      }),
    },
  },
};
