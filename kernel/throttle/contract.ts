/**
 * Failed-authentication throttle store. Keys are opaque strings such as `{ip}:{sha256(token)}`;
 * raw tokens never reach a store.
 */
import type { Circuit } from '../breaker.ts';

export interface ThrottlePolicy {
  /** Failures that trigger a block. @default 10 */
  maxFailures: number;
  /** Failures are counted in a fixed window of this many seconds from the first one. @default 900 */
  windowSeconds: number;
  /** How long a key stays blocked. @default 900 */
  blockSeconds: number;
}

export interface ThrottleStatus {
  /** As `blockedFor`. */
  blockedFor: number;
  /** Failures are counted for the key (not yet blocked, or a block is in force). */
  hasFailures: boolean;
}

export interface ThrottleStore {
  /** `redis` stores are shared by every instance; `memory` is per process. */
  readonly kind: 'memory' | 'redis';
  /** Seconds the key stays blocked (rounded up), or 0 when it is not blocked. */
  blockedFor(key: string): Promise<number>;
  /**
   * `blockedFor` and whether the key has failures counted, in one round trip: authentication asks
   * this before every request, and clears the key after a success only when there is something to
   * clear (most requests then cost the store one call, not two). A shared store may answer a block
   * it read less than a second ago from memory (a client retrying a blocked token costs it no
   * round trip); `blockedFor` always asks.
   */
  status(key: string): Promise<ThrottleStatus>;
  /**
   * Seconds the key stays blocked as far as this store knows without asking anyone (rounded up),
   * else 0: the in-process store's own block, the Redis store's memory of a block it read less
   * than a second ago (never while its circuit is open). For a runtime that refuses a blocked
   * client before the app runs (http/blocked.ts); a store without it is always asked.
   */
  knownBlock?(key: string): number;
  /**
   * Counts one failure for the key. Returns the block's length in seconds when this failure
   * reached `maxFailures` (the key is now blocked), else 0.
   */
  recordFailure(key: string, policy: ThrottlePolicy): Promise<number>;
  /** Clears the failure count and any block of the key. */
  reset(key: string): Promise<void>;
  /** Throws when the store cannot be reached. */
  ping(): Promise<void>;
  /** Redis: the circuit breaker, open while Redis stalls or cannot be reached (kernel/breaker.ts). */
  readonly circuit?: Circuit;
  close(): Promise<void>;
}

/** The store cannot be reached: authentication must fail closed (503). */
export class ThrottleUnavailableError extends Error {
  constructor(message = 'Throttle store unavailable', options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ThrottleUnavailableError';
  }
}

/**
 * The throttle as plugins see it (invitation preview and redeem): the same store, policy, 429 and
 * fail-closed 503 as bearer auth, for a key the plugin chooses such as `{ip}:invitation`.
 */
export interface ThrottleGuard {
  /** Throws 429 (with Retry-After) while the key is blocked. */
  assertNotBlocked(key: string): Promise<void>;
  /**
   * Counts one failure under the auth policy; with `scale`, the key is blocked only after `scale`
   * times the policy's failures (for failures that everyone behind one address makes now and
   * then, such as sign-ins their own browsers started and gave up).
   */
  recordFailure(key: string, scale?: number): Promise<void>;
  /** Clears the key's failures and block after a success. */
  reset(key: string): Promise<void>;
}
