/**
 * Behaviour every throttle store must share, run unchanged on the memory and the Redis store.
 * Nothing here depends on time passing; store-specific suites cover windows and expiry.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { ThrottlePolicy, ThrottleStore } from '../../kernel/throttle/contract.ts';

const policy: ThrottlePolicy = { maxFailures: 3, windowSeconds: 60, blockSeconds: 120 };

/** A fresh key shaped like the real ones (`{ip}:{sha256}`), so tests never share state. */
export function uniqueKey(): string {
  return `203.0.113.7:${randomUUID().replaceAll('-', '')}`;
}

export function describeThrottleStoreContract(
  name: string,
  create: () => ThrottleStore | Promise<ThrottleStore>,
): void {
  describe(`${name} store contract`, () => {
    const open: ThrottleStore[] = [];
    const store = async () => {
      const created = await create();
      open.push(created);
      return created;
    };
    afterEach(async () => {
      await Promise.all(open.splice(0).map((s) => s.close()));
    });

    it('does not block a key before it reaches maxFailures', async () => {
      const s = await store();
      const key = uniqueKey();
      expect(await s.recordFailure(key, policy)).toBe(0);
      expect(await s.recordFailure(key, policy)).toBe(0);
      expect(await s.blockedFor(key)).toBe(0);
    });

    it('blocks the key for blockSeconds on the failure that reaches maxFailures', async () => {
      const s = await store();
      const key = uniqueKey();
      await s.recordFailure(key, policy);
      await s.recordFailure(key, policy);
      expect(await s.recordFailure(key, policy)).toBe(120);
      expect(await s.blockedFor(key)).toBe(120);
    });

    it('counts each key on its own', async () => {
      const s = await store();
      const [a, b] = [uniqueKey(), uniqueKey()];
      await s.recordFailure(a, policy);
      await s.recordFailure(a, policy);
      expect(await s.recordFailure(b, policy)).toBe(0);
      expect(await s.recordFailure(a, policy)).toBe(120);
      expect(await s.blockedFor(b)).toBe(0);
    });

    it('starts a new count after a block, so the next block again needs maxFailures', async () => {
      const s = await store();
      const key = uniqueKey();
      for (let i = 0; i < 3; i++) await s.recordFailure(key, policy);
      expect(await s.recordFailure(key, policy)).toBe(0);
      expect(await s.recordFailure(key, policy)).toBe(0);
      expect(await s.recordFailure(key, policy)).toBe(120);
    });

    it('clears the failure count and the block on reset', async () => {
      const s = await store();
      const key = uniqueKey();
      for (let i = 0; i < 3; i++) await s.recordFailure(key, policy);
      await s.recordFailure(key, policy);
      await s.reset(key);
      expect(await s.blockedFor(key)).toBe(0);
      expect(await s.recordFailure(key, policy)).toBe(0);
      expect(await s.recordFailure(key, policy)).toBe(0);
      expect(await s.recordFailure(key, policy)).toBe(120);
    });

    it('reports in status whether a key has failures counted or is blocked', async () => {
      const s = await store();
      const key = uniqueKey();
      expect(await s.status(key)).toEqual({ blockedFor: 0, hasFailures: false });
      await s.recordFailure(key, policy);
      expect(await s.status(key)).toEqual({ blockedFor: 0, hasFailures: true });
      await s.recordFailure(key, policy);
      await s.recordFailure(key, policy);
      const blocked = await s.status(key);
      expect(blocked.hasFailures).toBe(true);
      expect(blocked.blockedFor).toBeGreaterThan(0);
      expect(blocked.blockedFor).toBeLessThanOrEqual(120);
      expect(blocked.blockedFor).toBe(await s.blockedFor(key));
      await s.reset(key);
      expect(await s.status(key)).toEqual({ blockedFor: 0, hasFailures: false });
    });

    it('counts 50 concurrent failures exactly once each', async () => {
      const s = await store();
      const key = uniqueKey();
      const wide: ThrottlePolicy = { ...policy, maxFailures: 51 };
      const results = await Promise.all(
        Array.from({ length: 50 }, () => s.recordFailure(key, wide)),
      );
      expect(results.every((r) => r === 0)).toBe(true);
      expect(await s.recordFailure(key, wide)).toBe(120);
    });

    it('blocks exactly once when concurrent failures cross the limit together', async () => {
      const s = await store();
      const key = uniqueKey();
      const results = await Promise.all(
        Array.from({ length: 50 }, () => s.recordFailure(key, { ...policy, maxFailures: 50 })),
      );
      expect(results.filter((r) => r === 120)).toHaveLength(1);
    });

    it('applies the policy given with each failure, so a reload takes effect at once', async () => {
      const s = await store();
      const key = uniqueKey();
      await s.recordFailure(key, policy);
      expect(await s.recordFailure(key, { ...policy, maxFailures: 2, blockSeconds: 30 })).toBe(30);
      expect(await s.blockedFor(key)).toBe(30);
    });

    it('knows a block without asking only once its status has been read, and forgets it on reset', async () => {
      const s = await store();
      const key = uniqueKey();
      expect(s.knownBlock?.(key)).toBe(0);
      for (let i = 0; i < 3; i++) await s.recordFailure(key, policy);
      const { blockedFor } = await s.status(key);
      expect(blockedFor).toBeGreaterThan(110);
      expect(s.knownBlock?.(key)).toBe(blockedFor);
      expect(s.knownBlock?.(uniqueKey())).toBe(0);
      await s.reset(key);
      expect(s.knownBlock?.(key)).toBe(0);
    });

    it('answers ping while reachable', async () => {
      const s = await store();
      await expect(s.ping()).resolves.toBeUndefined();
    });
  });
}
