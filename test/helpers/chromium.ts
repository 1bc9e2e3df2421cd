/** Where the browser suites find Chromium: `HUB_TEST_CHROMIUM`, else `chromium` on PATH. */
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

export const CHROMIUM_VAR = 'HUB_TEST_CHROMIUM';

export function findChromium(): string | undefined {
  if (process.env[CHROMIUM_VAR]) return process.env[CHROMIUM_VAR];
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    for (const name of ['chromium', 'chromium-browser'])
      if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  return undefined;
}
