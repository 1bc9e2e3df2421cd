/**
 * `GET /join`: the landing page of an invite link. Its script reads the secret from the URL
 * fragment (so it never reaches a URL, header or log) and asks this hub's
 * `POST /auth/invitations/preview` who it is for, as what, and until when; the page shows only
 * that answer, never the query's claims, and warns when the link's `url` is another origin. A link
 * for another tenant than the default one names it in `tenant`; the page asks that tenant. The
 * hub's name, too, comes from the preview: a page anyone can open names no tenant.
 * Always 200 HTML: a broken link gets an explanation, not an error body.
 */
import { htmlPageHeaders, newNonce } from '../../kernel/http/html.ts';
import { validateTenantId } from '../../kernel/identity/tenants.ts';
import { joinPageHtml, type JoinView } from './join-html.ts';

const ROLES = new Set(['user', 'admin']);
const MAX_PARAM = 1000;

const isTenantId = (raw: string) => {
  try {
    return validateTenantId(raw) === raw;
  } catch {
    return false;
  }
};

/** Reads and checks the query; null when the link is not a usable invite link. */
export function readJoinQuery(query: (name: string) => string | undefined): JoinView | null {
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
  const tenant = get('tenant');
  // A `tenant` that breaks the kernel's tenant-id rule makes the link unusable.
  if (tenant !== undefined && !isTenantId(tenant)) return null;
  // The deep link repeats the checked parameters only, so nothing else can ride along into the client.
  const deepQuery = new URLSearchParams({ url, name, role, exp });
  if (hub) deepQuery.set('hub', hub);
  if (access) deepQuery.set('access', access);
  if (tenant) deepQuery.set('tenant', tenant);
  return {
    url,
    ...(tenant ? { tenant } : {}),
    deepLinkBase: `harborclient://team-hub/join?${deepQuery.toString()}`,
  };
}

/** The security headers of the page: no external anything, inline code only with the nonce. */
export function joinHeaders(nonce: string): Record<string, string> {
  return htmlPageHeaders([
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "img-src 'none'",
    // The preview request, to this hub only.
    "connect-src 'self'",
  ]);
}

/**
 * Renders the page for a request's query. `served` tells whether this hub may serve the link's
 * tenant (the default tenant without one); the page never names the tenant's display name, which
 * only the preview answers to someone who holds a valid code.
 */
export function renderJoinPage(
  query: (name: string) => string | undefined,
  served: (tenantId: string | undefined) => boolean,
): { html: string; headers: Record<string, string> } {
  const nonce = newNonce();
  const view = readJoinQuery(query);
  return {
    html: joinPageHtml(view && served(view.tenant) ? view : null, nonce),
    headers: joinHeaders(nonce),
  };
}
