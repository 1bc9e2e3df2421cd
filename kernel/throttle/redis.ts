/**
 * Redis throttle store, shared by every hub instance. Keys are `<keyPrefix>throttle:fail:<key>` (the
 * failure counter, TTL = window) and `<keyPrefix>throttle:block:<key>` (TTL = block). Any Redis
 * failure becomes a {@link ThrottleUnavailableError}: a configured but unreachable Redis must let
 * nobody in, so authentication fails closed with 503. `status` remembers a block it read for up
 * to {@link KNOWN_BLOCK_MS} (never past the block's end), so a client retrying a blocked token is
 * refused without a round trip; failures are only ever counted in Redis.
 */
import type { Redis } from 'ioredis';
import { createCircuitBreaker } from '../breaker.ts';
import type { Logger } from '../log.ts';
import { closeRedisClient, createRedisClient, waitForRedis } from '../redis/client.ts';
import type { RedisConfig } from '../redis/config.ts';
import { ThrottleUnavailableError, type ThrottlePolicy, type ThrottleStore } from './contract.ts';

/**
 * One round trip, atomic: concurrent failures from several instances each count exactly once, and
 * the request that reaches the limit is the one that sets the block.
 * KEYS: fail, block. ARGV: windowSeconds, maxFailures, blockSeconds. Returns the block seconds or 0.
 */
const RECORD_FAILURE_LUA = `
local count = redis.call('INCR', KEYS[1])
-- TTL -1 heals a counter that somehow lost its expiry; it would otherwise count forever.
if count == 1 or redis.call('TTL', KEYS[1]) == -1 then
  redis.call('EXPIRE', KEYS[1], ARGV[1])
end
if count >= tonumber(ARGV[2]) then
  redis.call('SET', KEYS[2], '1', 'EX', ARGV[3])
  redis.call('DEL', KEYS[1])
  return tonumber(ARGV[3])
end
return 0
`;

/**
 * A key's throttle status in one command: the block's PTTL and whether failures are counted.
 * KEYS: block, fail. Returns { pttl, exists }.
 */
const STATUS_LUA = `return { redis.call('PTTL', KEYS[1]), redis.call('EXISTS', KEYS[2]) }`;

/** The commands `defineCommand` adds; ioredis cannot type them. */
type WithRecordFailure = Redis & {
  hubThrottleStatus(blockKey: string, failKey: string): Promise<[number, number]>;
  hubThrottleRecordFailure(
    failKey: string,
    blockKey: string,
    windowSeconds: number,
    maxFailures: number,
    blockSeconds: number,
  ): Promise<number>;
};

export interface RedisThrottleStoreOptions {
  /** Receives one line per Redis outage and one when it is back. */
  log?: Pick<Logger, 'info' | 'error'>;
  /** Milliseconds now (tests move it). @default Date.now */
  now?: () => number;
}

/**
 * How long `status` trusts what Redis last said of a blocked key without asking again. A client
 * that keeps sending a blocked token (the common case of a bad token: a script retrying) is then
 * answered from memory; Redis stays the only place failures are counted, so counts stay exact
 * across instances.
 */
export const KNOWN_BLOCK_MS = 1_000;

/** Known blocks kept at most; past this the expired ones go, then all (it is only a shortcut). */
const KNOWN_BLOCKS_MAX = 10_000;

/**
 * What Redis last said of blocked keys: key → when its block ends and until when this memory may
 * answer for it (the sooner of the block's end and {@link KNOWN_BLOCK_MS} after Redis said so).
 */
function blockMemory(now: () => number) {
  const known = new Map<string, { ends: number; trustUntil: number }>();
  return {
    /** Redis said the key is blocked for `millis` more. */
    know(key: string, millis: number): void {
      if (known.size >= KNOWN_BLOCKS_MAX) {
        const at = now();
        for (const [k, block] of known) if (block.trustUntil <= at) known.delete(k);
        if (known.size >= KNOWN_BLOCKS_MAX) known.clear();
      }
      const at = now();
      known.set(key, { ends: at + millis, trustUntil: at + Math.min(millis, KNOWN_BLOCK_MS) });
    },
    /** Seconds the key stays blocked (rounded up) while this memory may say so, else 0. */
    seconds(key: string): number {
      const block = known.get(key);
      if (!block) return 0;
      const at = now();
      if (block.trustUntil > at) return Math.max(1, Math.ceil((block.ends - at) / 1000));
      known.delete(key);
      return 0;
    },
    forget: (key: string) => void known.delete(key),
    clear: () => known.clear(),
  };
}

/** Creates the store with its own Redis connection, which `close()` closes. */
export function createRedisThrottleStore(
  config: RedisConfig,
  options: RedisThrottleStoreOptions = {},
): ThrottleStore & { readonly kind: 'redis' } {
  const client = createRedisClient(config, {
    purpose: 'throttle',
    log: options.log,
  }) as WithRecordFailure;
  client.defineCommand('hubThrottleRecordFailure', { numberOfKeys: 2, lua: RECORD_FAILURE_LUA });
  client.defineCommand('hubThrottleStatus', { numberOfKeys: 2, lua: STATUS_LUA });
  // Requests arriving while the first connection is still being made wait for it once (bounded
  // by connectTimeoutMillis); afterwards a down Redis fails each command at once.
  const firstConnection = waitForRedis(client, config.connectTimeoutMillis);
  const knownBlocks = blockMemory(options.now ?? Date.now);
  const failKey = (key: string) => `${config.keyPrefix}throttle:fail:${key}`;
  const blockKey = (key: string) => `${config.keyPrefix}throttle:block:${key}`;

  /** A block key's PTTL as seconds: -2 no block; -1 a block without expiry (only a manual SET makes one; honour it). */
  const blockSeconds = (millis: number) =>
    millis === -2 ? 0 : millis === -1 ? config.blockSeconds : Math.max(1, Math.ceil(millis / 1000));

  // Open while Redis stalls or cannot be reached: authentication fails closed at once instead of
  // each request waiting out the command timeout. One PING at a time probes it.
  const breaker = createCircuitBreaker({
    name: 'redis',
    probe: async () => void (await client.ping()),
  });

  async function guarded<T>(operation: string, run: () => Promise<T>): Promise<T> {
    if (breaker.isOpen()) {
      const reason = `Throttle store unavailable (${operation}): circuit open`;
      throw new ThrottleUnavailableError(reason, { cause: breaker.cause });
    }
    await firstConnection;
    const started = Date.now();
    try {
      return await run();
    } catch (cause) {
      // An error reply (a script error, say) came from a Redis that answers: not a stall.
      if ((cause as Error)?.name !== 'ReplyError') breaker.trip(cause, started);
      const reason = cause instanceof Error ? cause.message : String(cause);
      throw new ThrottleUnavailableError(`Throttle store unavailable (${operation}): ${reason}`, {
        cause,
      });
    }
  }

  return {
    kind: 'redis',

    blockedFor: (key) =>
      guarded('blockedFor', async () => blockSeconds(await client.pttl(blockKey(key)))),

    status(key) {
      // A block Redis reported less than KNOWN_BLOCK_MS ago answers without a round trip (unless
      // the circuit is open: then, as always, 503).
      const known = breaker.isOpen() ? 0 : knownBlocks.seconds(key);
      if (known > 0) return Promise.resolve({ blockedFor: known, hasFailures: true });
      return guarded('status', async () => {
        // One command (a script), so one reply to parse: every authenticated request asks.
        const [pttl, failures] = await client.hubThrottleStatus(blockKey(key), failKey(key));
        const millis = Number(pttl);
        if (millis > 0) knownBlocks.know(key, millis);
        const blockedFor = blockSeconds(millis);
        return { blockedFor, hasFailures: blockedFor > 0 || Number(failures) > 0 };
      });
    },

    knownBlock: (key) => (breaker.isOpen() ? 0 : knownBlocks.seconds(key)),

    recordFailure: (key, policy: ThrottlePolicy) =>
      guarded('recordFailure', async () => {
        const blocked = await client.hubThrottleRecordFailure(
          failKey(key),
          blockKey(key),
          policy.windowSeconds,
          policy.maxFailures,
          policy.blockSeconds,
        );
        return Number(blocked);
      }),

    reset: (key) =>
      guarded('reset', async () => {
        knownBlocks.forget(key);
        await client.del(failKey(key), blockKey(key));
      }),

    ping: () =>
      guarded('ping', async () => {
        await client.ping();
      }),

    circuit: breaker,

    close: () => {
      knownBlocks.clear();
      breaker.dispose();
      return closeRedisClient(client);
    },
  };
}
