/**
 * Runs the Deno smoke suite (test/deno/smoke.ts) under the Deno binary that the npm `deno` package
 * ships, so `npm test` covers the hub on Deno: SQLite, and PostgreSQL and Redis when
 * `HUB_TEST_PG_URL` / `HUB_TEST_REDIS_URL` are set. Under CI=true a missing binary or service
 * variable fails; outside CI a missing binary skips.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DENO = fileURLToPath(new URL('../../node_modules/deno/deno', import.meta.url));
const ci = process.env.CI === 'true';
const found = existsSync(DENO);

function runSmoke(): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(DENO, ['run', '--allow-all', 'test/deno/smoke.ts'], {
      cwd: ROOT,
      // No update check and no colour codes; deno.json's nodeModulesDir "manual" keeps npm imports offline.
      env: { ...process.env, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1', DENO_NO_PROMPT: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const timer = setTimeout(() => {
      output += '\n[deno-smoke.test] timed out after 100 s; killing the smoke run\n';
      child.kill('SIGKILL');
    }, 100_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('Deno smoke suite', () => {
  it('finds the Deno binary and the service variables under CI=true', () => {
    if (!ci) return;
    expect(
      found,
      `CI=true but the Deno binary is missing at ${DENO} (npm ci installs it with the deno package)`,
    ).toBe(true);
    for (const name of ['HUB_TEST_PG_URL', 'HUB_TEST_REDIS_URL'])
      expect(process.env[name], `CI=true but ${name} is not set`).toBeTruthy();
  });

  it.skipIf(!found && !ci)(
    'passes every step on Deno (SQLite, PostgreSQL, Redis, SIGHUP, SIGTERM)',
    async () => {
      const { code, output } = await runSmoke();
      expect(code, `deno run test/deno/smoke.ts exited ${code}:\n${output}`).toBe(0);
      expect(output).toContain('deno smoke suite passed');
    },
    120_000,
  );
});
