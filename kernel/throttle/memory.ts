/**
 * In-process throttle store, used when server.yaml has no `redis` section. Counts live in this
 * process only, so it suits a single instance. It mirrors the Redis store exactly: a failure counter
 * with a fixed window from the first failure, and a separate block entry that replaces it.
 */
import type { ThrottlePolicy, ThrottleStore } from './contract.ts';

export interface MemoryThrottleStoreOptions {
  /** Clock in epoch milliseconds; tests pass a fake one instead of sleeping. @default Date.now */
  now?: () => number;
  /**
   * Most failure counters kept at once, and separately most blocks; beyond it the oldest entry is
   * dropped, so a flood of distinct keys cannot grow memory without bound. @default 100000
   */
  maxEntries?: number;
}

export interface MemoryThrottleStore extends ThrottleStore {
  readonly kind: 'memory';
  /** Live failure counters plus blocks currently held (for tests and metrics). */
  entryCount(): number;
}

interface Expiring {
  /** Epoch milliseconds after which the entry is gone. */
  expiresAt: number;
}
interface Counter extends Expiring {
  count: number;
}

/**
 * Creates the in-process store. Expired entries are swept on every access; because entries are
 * (re)inserted when they start, a Map's insertion order is close to expiry order, so the sweep stops
 * at the first live entry and costs O(expired) rather than O(all).
 */
export function createMemoryThrottleStore(
  options: MemoryThrottleStoreOptions = {},
): MemoryThrottleStore {
  const now = options.now ?? Date.now;
  const maxEntries = options.maxEntries ?? 100_000;
  const failures = new Map<string, Counter>();
  const blocks = new Map<string, Expiring>();

  function sweep(map: Map<string, Expiring>, at: number): void {
    for (const [key, entry] of map) {
      // A window shortened by a config reload can sit behind a longer one; the cap still bounds it.
      if (entry.expiresAt > at) break;
      map.delete(key);
    }
  }

  function sweepAll(): number {
    const at = now();
    sweep(failures, at);
    sweep(blocks, at);
    return at;
  }

  /** Inserts at the end (newest), evicting the oldest entry when the map is full. */
  function insert<T extends Expiring>(map: Map<string, T>, key: string, entry: T): T {
    map.delete(key);
    if (map.size >= maxEntries) {
      const oldest = map.keys().next().value;
      if (oldest !== undefined) map.delete(oldest);
    }
    map.set(key, entry);
    return entry;
  }

  return {
    kind: 'memory',

    async blockedFor(key) {
      const at = sweepAll();
      const block = blocks.get(key);
      if (!block || block.expiresAt <= at) return 0;
      return Math.ceil((block.expiresAt - at) / 1000);
    },

    knownBlock(key) {
      const block = blocks.get(key);
      const at = now();
      return !block || block.expiresAt <= at ? 0 : Math.ceil((block.expiresAt - at) / 1000);
    },

    async status(key) {
      const at = sweepAll();
      const block = blocks.get(key);
      const blockedFor =
        !block || block.expiresAt <= at ? 0 : Math.ceil((block.expiresAt - at) / 1000);
      const counter = failures.get(key);
      return {
        blockedFor,
        hasFailures: blockedFor > 0 || (counter !== undefined && counter.expiresAt > at),
      };
    },

    async recordFailure(key, policy: ThrottlePolicy) {
      const at = sweepAll();
      let counter = failures.get(key);
      // The window is fixed from the first failure: later failures never extend it.
      if (!counter || counter.expiresAt <= at) {
        counter = insert(failures, key, { count: 0, expiresAt: at + policy.windowSeconds * 1000 });
      }
      counter.count += 1;
      if (counter.count < policy.maxFailures) return 0;
      failures.delete(key);
      insert(blocks, key, { expiresAt: at + policy.blockSeconds * 1000 });
      return policy.blockSeconds;
    },

    async reset(key) {
      failures.delete(key);
      blocks.delete(key);
    },

    async ping() {},

    async close() {
      failures.clear();
      blocks.clear();
    },

    entryCount() {
      sweepAll();
      return failures.size + blocks.size;
    },
  };
}
