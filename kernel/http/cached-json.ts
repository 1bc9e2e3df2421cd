/**
 * JSON answers serialized once and kept in the read cache (kernel/cache.ts): the bytes and their
 * ETag. Sending one costs no serialization, and a client that presents the ETag in
 * `If-None-Match` gets `304 Not Modified` with no body.
 */
import { createHash } from 'node:crypto';
import type { Context } from 'hono';

export interface CachedJson {
  /** `JSON.stringify` of the value, UTF-8. */
  readonly body: Uint8Array;
  /** A strong ETag of the body. */
  readonly etag: string;
}

const encoder = new TextEncoder();

export function toCachedJson(value: unknown): CachedJson {
  // Its own memory: Buffer.from would put a small body in a slice of a shared 8 KiB pool, which
  // the cache would keep alive whole while counting only the slice.
  const body = encoder.encode(JSON.stringify(value));
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  return { body, etag };
}

/** What a kept answer costs in memory, for the cache's budget. */
export const cachedJsonBytes = (cached: CachedJson | null): number | null =>
  cached ? cached.body.byteLength + 64 : null;

/** Whether `If-None-Match` names this ETag (or is `*`); weak and strong forms compare alike. */
function matches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  for (const candidate of header.split(',')) {
    const tag = candidate.trim();
    if (tag === '*' || tag === etag || tag === `W/${etag}`) return true;
  }
  return false;
}

/** 200 with the kept bytes, or 304 when the client already has them. */
export function sendCachedJson(c: Context<any, any, any>, cached: CachedJson): Response {
  if (matches(c.req.header('if-none-match'), cached.etag))
    return c.body(null, 304, { ETag: cached.etag });
  return c.body(cached.body as Uint8Array<ArrayBuffer>, 200, {
    'Content-Type': 'application/json',
    ETag: cached.etag,
  });
}
