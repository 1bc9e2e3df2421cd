/**
 * `GET /join`: the landing page of an invite link. It shows who is invited, as what, and until
 * when, and offers the desktop client's deep link. The secret stays in the URL fragment: only the
 * page's own script reads it, in the browser, so it never reaches this server or any log.
 * Always 200 HTML: a broken or expired link gets an explanation, not an error body.
 */
import { htmlPageHeaders, newNonce } from '../../kernel/http/html.ts';
import { joinPageHtml, type JoinView } from './join-html.ts';

const ROLES = new Set(['user', 'admin']);
const MAX_PARAM = 1000;

/** Reads and checks the query; null when the link is not a usable invite link. */
export function readJoinQuery(
  query: (name: string) => string | undefined,
  now: Date,
): JoinView | null {
  const get = (name: string) => {
    const value = query(name)?.trim();
    return value && value.length <= MAX_PARAM ? value : undefined;
  };
  const url = get('url');
  const name = get('name');
  const role = get('role');
  const exp = get('exp');
  if (!url || !name || !role || !exp || !ROLES.has(role)) return null;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
  } catch {
    return null;
  }
  const expires = Date.parse(exp);
  if (Number.isNaN(expires)) return null;
  const hub = get('hub');
  const access = get('access');
  // The deep link repeats the checked parameters only, so nothing else can ride along into the client.
  const deepQuery = new URLSearchParams({ url, name, role, exp });
  if (hub) deepQuery.set('hub', hub);
  if (access) deepQuery.set('access', access);
  return {
    url,
    name,
    role,
    expiresAt: new Date(expires).toISOString(),
    expired: expires <= now.getTime(),
    ...(hub ? { hub } : {}),
    ...(access ? { access } : {}),
    deepLinkBase: `harborclient://team-hub/join?${deepQuery.toString()}`,
  };
}

/** The security headers of the page: no external anything, inline code only with the nonce. */
export function joinHeaders(nonce: string): Record<string, string> {
  return htmlPageHeaders([
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "img-src 'none'",
  ]);
}

/** Renders the page for a request's query. */
export function renderJoinPage(
  query: (name: string) => string | undefined,
  now: Date,
): { html: string; headers: Record<string, string> } {
  const nonce = newNonce();
  return { html: joinPageHtml(readJoinQuery(query, now), nonce), headers: joinHeaders(nonce) };
}
