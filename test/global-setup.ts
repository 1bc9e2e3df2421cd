/**
 * Runs once before all test files: fails loudly when CI is set and a service the suites need is
 * missing, so CI can never pass by silently skipping a driver.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default async function setup(): Promise<void> {
  // The CLI tests spawn cli/bin.mjs, which runs dist/ when it is newer than the sources: build it
  // from the current sources, so those tests run exactly what `npm install` installs.
  execFileSync(
    process.execPath,
    [fileURLToPath(new URL('../scripts/build.mjs', import.meta.url))],
    { stdio: 'inherit' },
  );
  if (process.env.CI !== 'true') return;
  const required = ['HUB_TEST_PG_URL', 'HUB_TEST_MYSQL_URL', 'HUB_TEST_REDIS_URL'];
  const missing = required.filter((name) => !process.env[name]);
  if (missing.length > 0) {
    throw new Error(
      `CI=true but ${missing.join(', ')} not set: every service suite must run in CI.`,
    );
  }
}
