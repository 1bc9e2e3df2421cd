/**
 * axe-core in a page: its source is evaluated in the page (a strict CSP refuses an injected
 * script tag, but not what the test runner evaluates), then `axe.run` checks the whole document.
 * The violations that matter here are the serious and critical ones.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

let source: Promise<string> | undefined;

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/** The serious and critical axe-core violations of the page as it is now. */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  source ??= readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(await source);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(): Promise<any> } }).axe;
    const result = await axe.run();
    return result.violations
      .filter((v: { impact: string }) => v.impact === 'serious' || v.impact === 'critical')
      .map((v: { id: string; impact: string; help: string; nodes: { target: string[] }[] }) => ({
        id: v.id,
        impact: v.impact,
        help: v.help,
        targets: v.nodes.map((node) => node.target.join(' ')),
      }));
  });
}
