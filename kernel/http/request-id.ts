/**
 * Request ids the hub makes (when a request brings no usable `X-Request-Id`): this process's random
 * prefix (64 bits, new at every start) and a counter, so ids are unique across the processes that
 * share a database (audit events and revisions name them) without drawing a UUID per request.
 */
const prefix = Array.from(crypto.getRandomValues(new Uint8Array(8)), (byte) =>
  byte.toString(16).padStart(2, '0'),
).join('');
let counter = 0;

export function newRequestId(): string {
  return `${prefix}-${(++counter).toString(36)}`;
}
