/**
 * Runs once before all test files: fails loudly when CI is set and a service the suites need is
 * missing, so CI can never pass by silently skipping a driver.
 */
export default async function setup(): Promise<void> {
  if (process.env.CI !== 'true') return;
  const required = ['HUB_TEST_PG_URL', 'HUB_TEST_MYSQL_URL', 'HUB_TEST_REDIS_URL'];
  const missing = required.filter((name) => !process.env[name]);
  if (missing.length > 0) {
    throw new Error(`CI=true but ${missing.join(', ')} not set: every service suite must run in CI.`);
  }
}
