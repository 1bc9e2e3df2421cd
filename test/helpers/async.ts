/** Waiting in tests: a plain sleep, and polling until a condition holds. */

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls `check` until it is truthy, or throws after `timeoutMs` naming `what`. Returns how long it
 * took.
 */
export async function eventually(
  check: () => Promise<boolean> | boolean,
  timeoutMs = 3000,
  what = 'condition',
): Promise<number> {
  const start = Date.now();
  for (;;) {
    if (await check()) return Date.now() - start;
    if (Date.now() - start > timeoutMs)
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(20);
  }
}
