/**
 * Runs once before all test files: fails loudly when CI is set and a service the suites need is
 * missing, so CI can never pass by silently skipping a driver. Outside CI it says in one line which
 * suites will skip for want of an outside service, and which variable to set for each.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { CHROMIUM_VAR, findChromium } from './helpers/chromium.ts';

/** The suites that need an outside service, and the variable that names it. */
const SERVICES: [suites: string, variable: string][] = [
  ['PostgreSQL', 'HUB_TEST_PG_URL'],
  ['MySQL/MariaDB', 'HUB_TEST_MYSQL_URL'],
  ['Redis', 'HUB_TEST_REDIS_URL'],
  ['Firestore', 'HUB_TEST_FIRESTORE_EMULATOR_HOST'],
];

/** Set in the vitest process once this setup has run. */
const DONE_MARK = 'HUB_TEST_SETUP_DONE';

export default async function setup(): Promise<void> {
  // The CLI tests spawn cli/bin.mjs, which runs dist/ when it is newer than the sources: build it
  // from the current sources, so those tests run exactly what `npm install` installs. Each vitest
  // project may call this setup; it builds once per vitest process (a build replaces files one by
  // one, so a second one elsewhere leaves running commands their chunks).
  if (process.env[DONE_MARK] === '1') return;
  process.env[DONE_MARK] = '1';
  execFileSync(
    process.execPath,
    [fileURLToPath(new URL('../scripts/build.mjs', import.meta.url))],
    { stdio: 'inherit' },
  );
  if (process.env.CI !== 'true') {
    const skipped = SERVICES.filter(([, variable]) => !process.env[variable]).map(
      ([suites, variable]) => `${suites} suites (set ${variable})`,
    );
    if (!findChromium()) skipped.push(`browser suites (install chromium or set ${CHROMIUM_VAR})`);
    if (skipped.length > 0)
      console.log(`Skipped (no outside service configured): ${skipped.join(', ')}.`);
    return;
  }
  const required = ['HUB_TEST_PG_URL', 'HUB_TEST_MYSQL_URL', 'HUB_TEST_REDIS_URL'];
  const missing = required.filter((name) => !process.env[name]);
  if (missing.length > 0) {
    throw new Error(
      `CI=true but ${missing.join(', ')} not set: every service suite must run in CI.`,
    );
  }
}
