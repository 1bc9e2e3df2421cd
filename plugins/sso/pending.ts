/**
 * A sign-in between `/auth/sso/start` and the callback, kept by the browser alone: the tenant, the
 * `state` sent to the provider, the PKCE verifier, the nonce and the expiry, in one HttpOnly,
 * SameSite=Lax cookie signed with the hub's key (HMAC-SHA256, `cookie-key.ts`). A start writes
 * nothing; the signature shows the callback that the hub started this sign-in, for this tenant,
 * and until when. Single use is recorded at the callback (`single-use.ts`).
 */
import { base64url } from '../../kernel/identity/secrets.ts';
import { isLinkCode } from './linking.ts';

export const COOKIE = 'hub_sso';
/** How long a person has at the provider between start and callback. */
export const SIGN_IN_MS = 10 * 60_000;

/** What the browser keeps between start and callback. */
export interface Pending {
  tenant: string;
  state: string;
  verifier: string;
  nonce: string;
  /** Epoch milliseconds after which the sign-in is void. */
  expiresAt: number;
  /**
   * The one-time link code the sign-in started with (linking.ts), if any: the code itself, never
   * its sha256, which the database keeps — so a copy of the database (which also holds the
   * cookie's key) is not enough to forge a sign-in that links someone else's account.
   */
  link?: string;
}

const TENANT_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** Longest cookie read: a signed sign-in is about 330 characters. */
const MAX_COOKIE = 2000;

function fromBase64Url(text: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return null;
  try {
    const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
    return Uint8Array.from(binary, (char) => char.charCodeAt(0));
  } catch {
    return null;
  }
}

/** The HMAC key of a base64url secret (see `cookie-key.ts`). */
export function importCookieKey(secret: string): Promise<CryptoKey> {
  const raw = fromBase64Url(secret);
  if (!raw || raw.length < 32) throw new Error('the single sign-on cookie key is malformed');
  return crypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
    'verify',
  ]);
}

/** The cookie's value: `<payload>.<signature>`, both base64url. */
export async function encode(pending: Pending, key: CryptoKey): Promise<string> {
  const payload = base64url(new TextEncoder().encode(JSON.stringify(pending)));
  const mac = await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(payload));
  return `${payload}.${base64url(new Uint8Array(mac))}`;
}

/**
 * The sign-in the cookie holds, or null when there is none, its signature does not check (the
 * comparison is WebCrypto's, in constant time), it is malformed, or it expired at `now`.
 */
export async function decode(
  raw: string | undefined,
  key: CryptoKey,
  now: number,
): Promise<Pending | null> {
  if (!raw || raw.length > MAX_COOKIE) return null;
  const [payload, signature, extra] = raw.split('.');
  if (payload === undefined || signature === undefined || extra !== undefined) return null;
  const mac = fromBase64Url(signature);
  if (!mac) return null;
  if (!(await crypto.subtle.verify('HMAC', key, mac, new TextEncoder().encode(payload))))
    return null;
  try {
    const value = JSON.parse(new TextDecoder().decode(fromBase64Url(payload)!)) as Pending;
    const texts = [value.state, value.verifier, value.nonce];
    if (!texts.every((t) => typeof t === 'string' && t.length > 0 && t.length <= 200)) return null;
    if (typeof value.tenant !== 'string' || !TENANT_ID.test(value.tenant)) return null;
    if (value.link !== undefined && !isLinkCode(String(value.link))) return null;
    if (!Number.isFinite(value.expiresAt) || value.expiresAt <= now) return null;
    return value;
  } catch {
    return null;
  }
}
