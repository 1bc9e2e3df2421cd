/**
 * Secrets: `<prefix>_` + 32 random bytes (256 bits) in base64url. Only the sha256 is stored; the
 * secret is shown once. Web Crypto and `node:crypto` (which Deno provides too), so this runs
 * unchanged on Node and Deno.
 */
import * as nodeCrypto from 'node:crypto';

const encoder = new TextEncoder();

/** Bytes as base64url without padding. */
export function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export interface IssuedSecret {
  secret: string;
  /** Lower-case hex sha256 of the whole secret. */
  hash: string;
  /** Non-secret display prefix: the type prefix plus the first 8 random characters. */
  prefix: string;
}

/**
 * Lower-case hex sha256. Synchronous: every authenticated request hashes its token, and Web
 * Crypto's promise-based digest cost about twenty times as much CPU for a string this short.
 */
export const sha256Hex: (text: string) => string =
  // Node ≥ 20.12's one-shot `crypto.hash` skips the Hash object (Deno lacks it: the chain then).
  typeof nodeCrypto.hash === 'function'
    ? (text) => nodeCrypto.hash('sha256', text, 'hex')
    : (text) => nodeCrypto.createHash('sha256').update(text, 'utf8').digest('hex');

/** Creates a new secret such as `hbk_…` or `hbi_…`. */
export async function issueSecret(type: 'hbk' | 'hbi'): Promise<IssuedSecret> {
  const random = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const secret = `${type}_${random}`;
  return { secret, hash: sha256Hex(secret), prefix: `${type}_${random.slice(0, 8)}` };
}

/**
 * A secret someone chose (the first admin's token from a file): the same shape as an issued one,
 * `<prefix>_` and at least 32 base64url characters, or null when it is not.
 */
export function chosenSecret(type: 'hbk' | 'hbi', text: string): IssuedSecret | null {
  const match = new RegExp(`^${type}_([A-Za-z0-9_-]{32,512})$`).exec(text);
  if (!match) return null;
  return { secret: text, hash: sha256Hex(text), prefix: `${type}_${match[1]!.slice(0, 8)}` };
}

/** Compares two strings in time that depends only on their length. */
export function timingSafeEqual(a: string, b: string): boolean {
  const left = encoder.encode(a);
  const right = encoder.encode(b);
  let diff = left.length ^ right.length;
  const length = Math.max(left.length, right.length);
  for (let i = 0; i < length; i++) diff |= (left[i] ?? 0) ^ (right[i] ?? 0);
  return diff === 0;
}

export function newId(): string {
  return crypto.randomUUID();
}
