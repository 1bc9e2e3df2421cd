/**
 * Reading and sending the administrator's forms as a browser without script would: sign in,
 * send a page's form with its form token, and read back a field's message, its value as kept and
 * which boxes are ticked — from the HTML, entities decoded.
 */
import { expect } from 'vitest';
import type { TestHub } from '../helpers/hub.ts';
import { consoleClient, csrfOf } from './client.ts';

export type Browser = ReturnType<typeof consoleClient>;

/** A browser signed in with `token` (the test hub's administrator by default). */
export async function signedIn(t: Pick<TestHub, 'request' | 'adminToken'>, token = t.adminToken) {
  const browser = consoleClient(t);
  const answer = await browser.signIn(token);
  if (answer.status !== 303) throw new Error(`sign-in answered ${answer.status}`);
  return browser;
}

/** Opens `path` and sends its form with `fields` (and the page's form token) to `action`. */
export async function submit(
  browser: Browser,
  path: string,
  fields: Record<string, string>,
  action = path,
) {
  const page = await browser.get(path);
  const csrf = csrfOf(page.html);
  if (!csrf) throw new Error(`no form token on ${path} (${page.status})`);
  return browser.post(action, { csrf, ...fields });
}

/**
 * Sends a form the hub must refuse and reads the page it answers with: expects a 400 and gives the
 * message beside a field and the value a text field kept.
 */
export async function submitRefused(
  browser: Browser,
  path: string,
  fields: Record<string, string>,
) {
  const page = await submit(browser, path, fields);
  expect(page.status, `${path} accepted ${JSON.stringify(fields)}`).toBe(400);
  return {
    html: page.html,
    error: (field: string) => errorOf(page.html, field),
    value: (field: string) => valueOf(page.html, field),
  };
}

/** An access list's picker fields with these ids ticked (`some`), as a browser sends them. */
export const picked = (list: string, ...ids: string[]): Record<string, string> => ({
  [list]: 'some',
  ...Object.fromEntries(ids.map((id) => [`${list}:${id}`, 'on'])),
});

const decode = (text: string) =>
  text
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&');

/** The message shown beside a field (`f-<name>-error`), or null. */
export function errorOf(html: string, field: string): string | null {
  const match = new RegExp(`<p class="error" id="f-${field}-error">([^<]*)</p>`).exec(html);
  return match ? decode(match[1]!) : null;
}

/** The value a text field shows, or null when the page has no such field. */
export function valueOf(html: string, field: string): string | null {
  const input = new RegExp(`<input[^>]*\\bid="f-${field}"[^>]*>`).exec(html)?.[0];
  if (!input) return null;
  return decode(/\bvalue="([^"]*)"/.exec(input)?.[1] ?? '');
}

/** Whether the checkbox or radio named `name` (with `value`, for a radio) is ticked. */
export function ticked(html: string, name: string, value?: string): boolean {
  const inputs = html.match(/<input[^>]*>/g) ?? [];
  const input = inputs.find(
    (tag) =>
      tag.includes(`name="${name}"`) && (value === undefined || tag.includes(`value="${value}"`)),
  );
  return input !== undefined && /\bchecked=""|\bchecked\b/.test(input);
}

/** The text of the page without its tags (for what a reader sees). */
export const textOf = (html: string) =>
  decode(html.replace(/<[^>]+>/g, ' '))
    .replace(/\s+/g, ' ')
    .trim();
