/** Picks the throttle store from config: Redis when the section exists, else in-process. */
import type { Logger } from '../log.ts';
import type { RedisConfig } from '../redis/config.ts';
import type { ThrottleStore } from './contract.ts';
import { createMemoryThrottleStore } from './memory.ts';
import { createRedisThrottleStore } from './redis.ts';

/**
 * Creates the throttle store for the `redis` section, or an in-process one when there is none. The
 * in-process store is said in the log, because counts then differ per instance and a second
 * instance would multiply the allowed failures.
 */
export function createThrottleStore(redis: RedisConfig | undefined, log: Logger): ThrottleStore {
  if (!redis) {
    log.warn('No redis section: failed-auth throttling is per process (single-instance only).');
    return createMemoryThrottleStore();
  }
  return createRedisThrottleStore(redis, { log });
}
