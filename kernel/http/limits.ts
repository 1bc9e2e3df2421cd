/**
 * Limits on the request head that hold on every runtime. The URL limit sits well below the header
 * limit (Node's parser allows 16 KiB for the request line and headers together), so a long URL is
 * answered 414 by the hub itself (http/edge.ts) rather than 431 by the parser.
 */

/** Longest request target (path and query) the hub accepts, in bytes; longer gets 414. */
export const MAX_URL_BYTES = 8 * 1024;

/** Request line and headers together, in bytes, past which the head is refused with 431. */
export const MAX_HEADER_BYTES = 16 * 1024;

export const URL_TOO_LONG_MESSAGE = `URL is too long (limit ${MAX_URL_BYTES} bytes).`;
export const HEADERS_TOO_LARGE_MESSAGE = `Request headers are too large (limit ${MAX_HEADER_BYTES} bytes).`;
