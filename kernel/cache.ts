/**
 * The read cache: values derived from tables (an authenticated token and its user, a serialized
 * list) kept in process while the tables' change stamp is unchanged (storage/changes.ts), so a
 * hot read costs at most one small round trip shared by concurrent lookups (the proof that the
 * stamps include every earlier commit) and is never stale. A driver whose stamps cannot be proven
 * current right now gets every read loaded afresh.
 *
 * Memory is bounded by a byte budget (`server.cacheBytes`): entries are dropped least recently
 * used first, and a value larger than a quarter of the budget is not kept at all. Concurrent
 * misses of one key share one load.
 */
import { arrivalMark } from './storage/batched.ts';
import type { Store } from './storage/contract.ts';
import type { AuditScope, StoreContext } from './storage/context.ts';
import type { Table } from './storage/table.ts';

/**
 * The context of the stores made for one request as it arrived (`c.get('store')`): who acts
 * (`audit`), when it arrived (an `arrivalMark`), and the proof its first lookup asked for. A proof
 * asked for after the request arrived covers every write acknowledged before it, so the request's
 * later lookups (authentication, then its handler's) share it: one round trip per request, not
 * per lookup; and a proof another request started after this one arrived answers it too. No other
 * store shares: a job's or command's context has no arrival, as its store outlives any proof.
 */
export function requestContext(audit: AuditScope | null): StoreContext {
  return { audit, arrival: arrivalMark(), proven: undefined };
}

export interface ReadCache {
  /**
   * The value kept under `key` while no row of `tables` has changed, else `load()`'s (kept when
   * it resolves). `load` must read through `store`, whose driver's stamps decide (outside a
   * transaction; a transaction's store is never cached). `bytes` estimates a value's size, or is
   * null for a value not worth keeping (a miss). Values are shared between requests: never
   * change one.
   */
  read<T>(
    store: Store,
    key: string,
    tables: readonly Table[],
    load: () => Promise<T>,
    bytes: (value: T) => number | null,
  ): Promise<T>;
  /** Drops everything (the database was swapped). */
  clear(): void;
}

interface Entry {
  stamp: number;
  value: unknown;
  bytes: number;
}

/** A per-entry allowance for the key, the map slot and the entry object. */
const OVERHEAD_BYTES = 200;

export interface CacheStats {
  hits: number;
  misses: number;
  bytes: number;
  entries: number;
}

export function createReadCache(budget: () => number): ReadCache & { stats(): CacheStats } {
  // A Map iterates in insertion order: re-inserting on a hit makes its first key the least recent.
  const entries = new Map<string, Entry>();
  const loading = new Map<string, { stamp: number; promise: Promise<unknown> }>();
  let bytes = 0;
  let hits = 0;
  let misses = 0;

  const remove = (key: string, entry: Entry) => {
    entries.delete(key);
    bytes -= entry.bytes;
  };

  const keep = (key: string, stamp: number, value: unknown, size: number) => {
    const limit = budget();
    const old = entries.get(key);
    // Stamps grow: a load that started later (a higher stamp) already left a newer value here.
    if (old && old.stamp > stamp) return;
    if (old) remove(key, old);
    if (size > limit / 4) return;
    entries.set(key, { stamp, value, bytes: size });
    bytes += size;
    for (const [oldest, entry] of entries) {
      if (bytes <= limit) break;
      remove(oldest, entry);
    }
  };

  /** The proof a lookup on `store` waits for: its request's, once asked, else a new one. */
  const proofFor = (store: Store): boolean | Promise<boolean> => {
    const request = store.context;
    if (request.arrival === null) return store.changes!.caughtUp();
    return (request.proven ??= store.changes!.caughtUp(request.arrival));
  };

  return {
    async read<T>(
      store: Store,
      key: string,
      tables: readonly Table[],
      load: () => Promise<T>,
      size: (value: T) => number | null,
    ): Promise<T> {
      const changes = store.changes;
      const names = tables.map((table) => table.name);
      let stamp = changes && budget() > 0 ? changes.stamp(names) : null;
      if (stamp === null) return load();
      const looksCurrent = () =>
        entries.get(key)?.stamp === stamp || loading.get(key)?.stamp === stamp;
      if (looksCurrent()) {
        // A kept value, or a load in flight, that looks current answers only once the stamps are
        // proven to include every commit made before this lookup (one round trip shared by
        // concurrent lookups). One already known stale needs no proof: it is reloaded at once.
        // One proof serves every request that arrived in the same turn of the event loop (asked
        // once the turn is over: storage/batched.ts), on SQLite a statement, on the others a round
        // trip. The lookups of one request share its first proof (see requestContext).
        const proof = proofFor(store);
        const proven = typeof proof === 'boolean' ? proof : await proof;
        stamp = proven ? changes!.stamp(names) : null;
        if (stamp === null) return load();
        const hit = entries.get(key);
        if (hit?.stamp === stamp) {
          hits++;
          entries.delete(key);
          entries.set(key, hit);
          return hit.value as T;
        }
        const pending = loading.get(key);
        if (pending?.stamp === stamp) {
          misses++;
          return pending.promise as Promise<T>;
        }
      }
      misses++;
      const stale = entries.get(key);
      if (stale) remove(key, stale);
      // The stamp was taken before the load: a write that lands meanwhile moves it, and the value
      // kept here is then never served.
      const promise = load();
      loading.set(key, { stamp, promise });
      try {
        const value = await promise;
        const estimate = size(value);
        if (estimate !== null) keep(key, stamp, value, estimate + OVERHEAD_BYTES + key.length * 2);
        return value;
      } finally {
        if (loading.get(key)?.promise === promise) loading.delete(key);
      }
    },
    clear() {
      entries.clear();
      loading.clear();
      bytes = 0;
    },
    stats: () => ({ hits, misses, bytes, entries: entries.size }),
  };
}

const numbers = new WeakMap<object, number>();
let lastNumber = 0;

/**
 * A small number that stands for `object` for as long as it lives, for keys that must not mix what
 * was derived from two objects (two configs, two database connections) without holding either.
 */
export function objectNumber(object: object): number {
  let number = numbers.get(object);
  if (number === undefined) numbers.set(object, (number = ++lastNumber));
  return number;
}
