/**
 * What the browser keeps between `/auth/sso/start` and the callback: the tenant, the key of the
 * sign-in's row, the PKCE verifier and the nonce, in one HttpOnly, SameSite=Lax cookie.
 */
export const COOKIE = 'hub_sso';
/** How long a person has at the provider between start and callback. */
export const SIGN_IN_MS = 10 * 60_000;

/** What the browser keeps between start and callback. */
export interface Pending {
  tenant: string;
  key: string;
  verifier: string;
  nonce: string;
}

export const encode = (pending: Pending) =>
  btoa(JSON.stringify(pending)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

export function decode(raw: string | undefined): Pending | null {
  if (!raw || raw.length > 2000) return null;
  try {
    const value = JSON.parse(atob(raw.replace(/-/g, '+').replace(/_/g, '/'))) as Pending;
    const fields = [value.tenant, value.key, value.verifier, value.nonce];
    if (!fields.every((f) => typeof f === 'string' && f.length > 0 && f.length <= 200)) return null;
    // A tenant id as the hub makes them (`validateTenantId`), or no sign-in at all.
    return /^[A-Za-z0-9_-]{1,64}$/.test(value.tenant) ? value : null;
  } catch {
    return null;
  }
}
