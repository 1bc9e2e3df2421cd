/** Picks the throttle store from config: Redis when the section exists, else in-process. */
import type { Logger } from '../log.ts';
import type { RedisConfig } from '../redis/config.ts';
import type { DbConfig } from '../storage/config.ts';
import type { ThrottleStore } from './contract.ts';
import { createMemoryThrottleStore } from './memory.ts';
import { createRedisThrottleStore } from './redis.ts';

/**
 * Databases several hub instances can share. On one of them without Redis a second instance would
 * count failed attempts apart (multiplying what is allowed) and miss the first one's notices, so
 * that is worth a warning; the embedded database serves one instance, for which it is right.
 */
const SHARED_DRIVERS: ReadonlySet<DbConfig['driver']> = new Set(['postgres', 'mysql', 'firestore']);

/**
 * Creates the throttle store for the `redis` section, or an in-process one when there is none,
 * which the log says: at info on the embedded database, as a warning on a shared one.
 */
export function createThrottleStore(
  redis: RedisConfig | undefined,
  log: Logger,
  driver: DbConfig['driver'],
): ThrottleStore {
  if (!redis) {
    if (SHARED_DRIVERS.has(driver))
      log.warn(
        `No redis section on a shared ${driver} database: failed-auth throttling and notice streams stay in this process. Several instances need a redis section.`,
      );
    else
      log.info(
        'No redis section: failed-auth throttling and notice streams stay in this process (right for one instance).',
      );
    return createMemoryThrottleStore();
  }
  return createRedisThrottleStore(redis, { log });
}
