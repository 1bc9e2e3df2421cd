import { describe, expect, it } from 'vitest';
import type { ThrottlePolicy } from '../../kernel/throttle/contract.ts';
import { createMemoryThrottleStore } from '../../kernel/throttle/memory.ts';
import { describeThrottleStoreContract } from './store-contract.ts';

describeThrottleStoreContract('memory', () => createMemoryThrottleStore());

const policy: ThrottlePolicy = { maxFailures: 3, windowSeconds: 60, blockSeconds: 900 };

/** A store on a hand-driven clock: `advance(ms)` replaces sleeping. */
function storeWithClock(options: { maxEntries?: number } = {}) {
  let now = 1_700_000_000_000;
  const store = createMemoryThrottleStore({ now: () => now, ...options });
  return { store, advance: (ms: number) => void (now += ms) };
}

describe('memory throttle store', () => {
  it('reports itself as per-process', () => {
    expect(createMemoryThrottleStore().kind).toBe('memory');
  });

  it('counts failures in a fixed window from the first failure, not extended by later ones', async () => {
    const { store, advance } = storeWithClock();
    await store.recordFailure('k', policy);
    advance(59_000);
    await store.recordFailure('k', policy);
    advance(1_000); // the window of the first failure is over: the count restarts here
    expect(await store.recordFailure('k', policy)).toBe(0);
    expect(await store.recordFailure('k', policy)).toBe(0);
    expect(await store.recordFailure('k', policy)).toBe(900);
  });

  it('blocks when maxFailures fall inside one window', async () => {
    const { store, advance } = storeWithClock();
    await store.recordFailure('k', policy);
    advance(59_999);
    await store.recordFailure('k', policy);
    expect(await store.recordFailure('k', policy)).toBe(900);
  });

  it('reports the remaining block in whole seconds, rounded up, until it expires', async () => {
    const { store, advance } = storeWithClock();
    for (let i = 0; i < 3; i++) await store.recordFailure('k', policy);
    expect(await store.blockedFor('k')).toBe(900);
    advance(500);
    expect(await store.blockedFor('k')).toBe(900);
    advance(1_000);
    expect(await store.blockedFor('k')).toBe(899);
    advance(898_499);
    expect(await store.blockedFor('k')).toBe(1);
    advance(1);
    expect(await store.blockedFor('k')).toBe(0);
  });

  it('forgets expired counters and blocks, so idle keys take no memory', async () => {
    const { store, advance } = storeWithClock();
    for (let i = 0; i < 3; i++) await store.recordFailure('blocked', policy);
    await store.recordFailure('counted', policy);
    expect(store.entryCount()).toBe(2);
    advance(60_000);
    expect(store.entryCount()).toBe(1);
    advance(840_000);
    expect(store.entryCount()).toBe(0);
  });

  it('keeps at most maxEntries counters by dropping the oldest', async () => {
    const { store } = storeWithClock({ maxEntries: 3 });
    for (const key of ['a', 'b', 'c', 'd', 'e']) await store.recordFailure(key, policy);
    expect(store.entryCount()).toBe(3);
    // `e` survived with its count of one; `a` was dropped and starts over.
    await store.recordFailure('e', policy);
    expect(await store.recordFailure('e', policy)).toBe(900);
    await store.recordFailure('a', policy);
    expect(await store.recordFailure('a', policy)).toBe(0);
  });

  it('keeps blocks apart from counters, so a flood of new keys cannot evict a block', async () => {
    const { store } = storeWithClock({ maxEntries: 2 });
    for (let i = 0; i < 3; i++) await store.recordFailure('blocked', policy);
    for (let i = 0; i < 10; i++) await store.recordFailure(`flood-${i}`, policy);
    expect(await store.blockedFor('blocked')).toBe(900);
  });

  it('drops everything on close', async () => {
    const { store } = storeWithClock();
    await store.recordFailure('k', policy);
    await store.close();
    expect(store.entryCount()).toBe(0);
  });
});
