/**
 * One error type for every deliberate failure, and one serializer. Handlers throw an
 * {@link HttpError}; the pipeline turns it into `{ "error": "<message>" }` with its status. Anything
 * else that escapes a handler is a bug: it is logged with the request id and answered with a generic
 * 500 that leaks nothing.
 */
import type { ContentfulStatusCode } from 'hono/utils/http-status';

export class HttpError extends Error {
  readonly status: ContentfulStatusCode;
  /** Extra headers for the response, e.g. `Retry-After`. */
  readonly headers: Record<string, string>;
  /** Extra body fields beside `error` (kept rare: `fatalError` on config reload). */
  readonly extra: Record<string, unknown>;
  constructor(
    status: ContentfulStatusCode,
    message: string,
    options: { headers?: Record<string, string>; extra?: Record<string, unknown> } = {},
  ) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
    this.headers = options.headers ?? {};
    this.extra = options.extra ?? {};
  }
}

export const badRequest = (message: string) => new HttpError(400, message);
export const unauthorized = (message = 'Unauthorized') =>
  new HttpError(401, message, { headers: { 'WWW-Authenticate': 'Bearer' } });
export const forbidden = (message = 'Forbidden') => new HttpError(403, message);
export const notFound = (message = 'Not Found') => new HttpError(404, message);
export const conflict = (message: string) => new HttpError(409, message);
/** The one message of a 503 for a dependency that is down (database, Redis, the notice fan-out). */
export const UNAVAILABLE = 'Service Unavailable';
export const serviceUnavailable = (message = UNAVAILABLE) => new HttpError(503, message);
