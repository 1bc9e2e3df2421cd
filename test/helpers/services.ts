/**
 * The shared services the suites run against, each named by a `HUB_TEST_*` variable. A suite that
 * needs one asks `requireService`: outside CI an unset variable skips the suite, under CI=true it
 * fails the file, so CI can never pass by silently skipping a service.
 */
import { randomUUID } from 'node:crypto';

export const PG_URL_VAR = 'HUB_TEST_PG_URL';
export const MYSQL_URL_VAR = 'HUB_TEST_MYSQL_URL';
export const REDIS_URL_VAR = 'HUB_TEST_REDIS_URL';

/**
 * The variable's value, or `undefined` when it is unset outside CI (skip the suite then, e.g. with
 * `describe.runIf(requireService(REDIS_URL_VAR))`); throws when it is unset under CI=true.
 */
export function requireService(variable: string): string | undefined {
  const value = process.env[variable];
  if (value) return value;
  if (process.env.CI === 'true')
    throw new Error(`CI=true but ${variable} is not set: every service suite must run in CI.`);
  return undefined;
}

/**
 * A `redis` section for server.yaml on the Redis at HUB_TEST_REDIS_URL, under a key prefix of its
 * own unless `overrides` names one.
 */
export function redisSection(
  overrides: Record<string, unknown> = {},
): Record<string, unknown> & { host: string; port: number; keyPrefix: string } {
  const raw = requireService(REDIS_URL_VAR);
  if (!raw)
    throw new Error(`${REDIS_URL_VAR} is not set: run this only in a suite that required it.`);
  const url = new URL(raw);
  return {
    host: url.hostname,
    port: Number(url.port || 6379),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
    ...(url.pathname.length > 1 ? { db: Number(url.pathname.slice(1)) } : {}),
    keyPrefix: `hubtest:${randomUUID().slice(0, 8)}:`,
    ...overrides,
  };
}
