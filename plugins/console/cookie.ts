/**
 * The session cookie: its name, attributes and value. `HttpOnly` and `SameSite=Strict` always
 * (every way into a session is a same-origin form post, the single sign-on result page's
 * included); behind https (`server.publicUrl`) also `Secure` with the `__Host-` prefix, which
 * binds it to this host and path `/`. Over plain http it is limited to the console's path.
 */
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { HubConfig } from '../../kernel/config/load.ts';
import { publicBaseUrl } from '../../kernel/http/hub-address.ts';
import { base64url } from '../../kernel/identity/secrets.ts';
import { validateTenantId } from '../../kernel/identity/tenants.ts';

const NAME = 'hub_console';

/** The path the hub is served under (`server.publicUrl`'s, e.g. `/team`), or ''. */
export function pathPrefix(server: HubConfig['server']): string {
  return new URL(publicBaseUrl(server)).pathname.replace(/\/+$/, '');
}

interface CookieSettings {
  name: string;
  path: string;
  secure: boolean;
}

export function cookieSettings(server: HubConfig['server']): CookieSettings {
  if (publicBaseUrl(server).startsWith('https:'))
    return { name: `__Host-${NAME}`, path: '/', secure: true };
  return { name: NAME, path: `${pathPrefix(server)}/console`, secure: false };
}

/**
 * A new cookie value: the tenant, a dot, and 32 random bytes. The tenant tells which tenant's
 * table holds the session; the random part is the secret.
 */
export function newCookieValue(tenantId: string): string {
  return `${tenantId}.${base64url(crypto.getRandomValues(new Uint8Array(32)))}`;
}

/** The tenant a cookie value names, or null for a value the hub never made. */
export function tenantOfValue(value: string): string | null {
  const dot = value.indexOf('.');
  if (dot <= 0 || !/^[A-Za-z0-9_-]{43}$/.test(value.slice(dot + 1))) return null;
  try {
    return validateTenantId(value.slice(0, dot));
  } catch {
    return null;
  }
}

export function readSessionCookie(c: Context, server: HubConfig['server']): string | undefined {
  return getCookie(c, cookieSettings(server).name);
}

export function writeSessionCookie(
  c: Context,
  server: HubConfig['server'],
  value: string,
  maxAgeSeconds: number,
): void {
  const { name, path, secure } = cookieSettings(server);
  setCookie(c, name, value, {
    path,
    secure,
    httpOnly: true,
    sameSite: 'Strict',
    maxAge: maxAgeSeconds,
  });
}

export function clearSessionCookie(c: Context, server: HubConfig['server']): void {
  const { name, path, secure } = cookieSettings(server);
  deleteCookie(c, name, { path, secure, httpOnly: true, sameSite: 'Strict' });
}
