/**
 * What `GET /admin/overview` counts, by name: the kernel's users and tokens, and what plugins
 * register at setup for the tables they own (collections, requests, discussions), so the kernel
 * names no feature table.
 */
import { apiTokensTable, usersTable } from '../identity/tables.ts';
import type { Store } from '../storage/contract.ts';

/** How many of something one tenant holds, counted with the tenant's store. */
export type Count = (store: Store) => Promise<number>;

/** Where plugins name what the overview counts (`collections`, `requests` …), at setup. */
export interface CountRegistry {
  /** `name` is the answer's key; a second registration of a name replaces the first. */
  register(name: string, count: Count): void;
}

export interface Counts extends CountRegistry {
  /** Every registered count for the tenant of `store`, by name, in registration order. */
  all(store: Store): Promise<Record<string, number>>;
}

/** The registry, with the kernel's own: people (not the system account) and active tokens. */
export function createCounts(): Counts {
  const counts = new Map<string, Count>([
    ['users', (store) => store.table(usersTable).count({ system: false })],
    ['tokens', (store) => store.table(apiTokensTable).count({ revokedAt: null })],
  ]);
  return {
    register(name, count) {
      counts.set(name, count);
    },
    async all(store) {
      const entries = [...counts];
      const values = await Promise.all(entries.map(([, count]) => count(store)));
      return Object.fromEntries(entries.map(([name], i) => [name, values[i]!]));
    },
  };
}
