/**
 * The `redis` section of server.yaml: where Redis is, and the failed-authentication throttle
 * settings (Redis holds the counters, so the section owns them, as the desktop client expects).
 */
import { z } from 'zod';
import { secret } from '../config/secrets.ts';

/**
 * An integer, also given as a numeric string: `${NAME}` interpolation always yields strings. Unlike
 * `z.coerce`, an empty string or `null` stays invalid instead of quietly becoming 0.
 */
const int = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  z.preprocess(
    (value) => (typeof value === 'string' && value.trim() !== '' ? Number(value) : value),
    z.number().int().min(min).max(max),
  );

/** A boolean, also given as `"true"` / `"false"` from environment interpolation. */

export const redisSchema = z.strictObject({
  /** Redis host name or address. @default '127.0.0.1' */
  host: z.string().min(1, 'Host must not be empty.').default('127.0.0.1'),
  /** Redis port. @default 6379 */
  port: int(1, 65535).default(6379),
  /** AUTH password; an empty string (e.g. `${REDIS_PASSWORD:-}`) means none. @default undefined */
  password: secret(
    z
      .string()
      .optional()
      .transform((value) => (value === '' ? undefined : value)),
  ),
  /** Database index. @default 0 */
  db: int(0, 15).default(0),
  /**
   * Prefix of every throttle key; a `:` is appended when missing so keys read `prefix:throttle:…`.
   * Lets several hubs share one Redis. @default 'workspace-hub:'
   */
  keyPrefix: z
    .string()
    .default('workspace-hub:')
    .transform((prefix) => (prefix === '' || prefix.endsWith(':') ? prefix : `${prefix}:`)),
  /** Failed authentications per IP and token that trigger a block. @default 10 */
  maxFailures: int(1).default(10),
  /** Fixed window, counted from the first failure, in which failures add up. @default 900 */
  windowSeconds: int(1).default(900),
  /** How long a key stays blocked; also the `Retry-After` value. @default 900 */
  blockSeconds: int(1).default(900),
  /**
   * Failed authentications per IP across all tokens that trigger a block of that IP, so guessing
   * many different tokens is throttled too; 0 disables the per-IP limit. @default 100
   */
  maxFailuresPerIp: int(0).default(100),
  /**
   * Milliseconds to wait for a connection, and for a command's reply, before Redis counts as down
   * (authentication then fails closed with 503). @default 2000
   */
  connectTimeoutMillis: int(50, 60_000).default(2000),
});

export type RedisConfig = z.output<typeof redisSchema>;

/** The failed-authentication throttle's numbers (http/auth.ts's `AuthPolicy`). */
export type ThrottleNumbers = Pick<
  RedisConfig,
  'maxFailures' | 'windowSeconds' | 'blockSeconds' | 'maxFailuresPerIp'
>;

/** Throttle numbers when there is no redis section: the schema's own defaults. */
const THROTTLE_DEFAULTS: ThrottleNumbers = (({
  maxFailures,
  windowSeconds,
  blockSeconds,
  maxFailuresPerIp,
}) => ({ maxFailures, windowSeconds, blockSeconds, maxFailuresPerIp }))(redisSchema.parse({}));

/** The failed-authentication throttle numbers the section sets, or its defaults without one. */
export function throttlePolicy(redis: RedisConfig | undefined): ThrottleNumbers {
  return redis
    ? {
        maxFailures: redis.maxFailures,
        windowSeconds: redis.windowSeconds,
        blockSeconds: redis.blockSeconds,
        maxFailuresPerIp: redis.maxFailuresPerIp,
      }
    : THROTTLE_DEFAULTS;
}
