/**
 * One error type for every deliberate failure, and one serializer. Handlers throw an
 * {@link HttpError}; the pipeline turns it into `{ "error": "<message>", "code": "<code>" }` with its
 * status. `error` is the human message (the spec's field, unchanged); `code` is a stable machine
 * code from {@link ERROR_CODES}, so clients and tests can match the kind of failure, not its wording.
 * Anything else that escapes a handler is a bug: it is logged with the request id and answered with
 * a generic 500 that leaks nothing.
 */
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/** Every `code` an error answer can carry; the API document lists them as the code's enum. */
export const ERROR_CODES = [
  'validation_failed',
  'malformed_json',
  'malformed_request',
  'unauthorized',
  'quota_exceeded',
  'forbidden',
  'not_found',
  'method_not_allowed',
  'request_timeout',
  'conflict',
  'write_conflict',
  'gone',
  'precondition_failed',
  'payload_too_large',
  'url_too_long',
  'unsupported_media_type',
  'rate_limited',
  'headers_too_large',
  'internal_error',
  'upstream_failed',
  'service_unavailable',
  'not_configured',
  'not_ready',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

const CODE_OF_STATUS: Record<number, ErrorCode> = {
  400: 'validation_failed',
  401: 'unauthorized',
  402: 'quota_exceeded',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  408: 'request_timeout',
  409: 'conflict',
  410: 'gone',
  412: 'precondition_failed',
  413: 'payload_too_large',
  414: 'url_too_long',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  431: 'headers_too_large',
  500: 'internal_error',
  502: 'upstream_failed',
  503: 'service_unavailable',
};

/** The code of a status when nothing more specific is known. */
export function codeOfStatus(status: number): ErrorCode {
  return CODE_OF_STATUS[status] ?? (status >= 500 ? 'internal_error' : 'validation_failed');
}

/** The body of every error answer: the message, its code, then any extra fields. */
export function errorBody(
  message: string,
  code: ErrorCode,
  extra: Record<string, unknown> = {},
): Record<string, unknown> & { error: string; code: ErrorCode } {
  return { error: message, code, ...extra };
}

export class HttpError extends Error {
  readonly status: ContentfulStatusCode;
  /** The stable code of the answer. @default the status's own ({@link codeOfStatus}) */
  readonly code: ErrorCode;
  /** Extra headers for the response, e.g. `Retry-After`. */
  readonly headers: Record<string, string>;
  /** Extra body fields beside `error` and `code` (kept rare: `fatalError` on config reload). */
  readonly extra: Record<string, unknown>;
  constructor(
    status: ContentfulStatusCode,
    message: string,
    options: {
      code?: ErrorCode;
      headers?: Record<string, string>;
      extra?: Record<string, unknown>;
    } = {},
  ) {
    // An expected refusal (401 on a bad token, 404, 429) needs no stack, and capturing one was
    // the dearest step of a refused request; a 5xx keeps its stack for the log.
    const limit = Error.stackTraceLimit;
    if (status < 500) Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.name = 'HttpError';
    this.status = status;
    this.code = options.code ?? codeOfStatus(status);
    this.headers = options.headers ?? {};
    this.extra = options.extra ?? {};
  }
}

/** A request that breaks a rule: the message names the field (code `validation_failed`). */
export const badRequest = (message: string) => new HttpError(400, message);
export const unauthorized = (message = 'Unauthorized') =>
  new HttpError(401, message, { headers: { 'WWW-Authenticate': 'Bearer' } });
/** A refusal: the message says why (which role, list or rule), never a bare "Forbidden". */
export const forbidden = (message: string) => new HttpError(403, message);
export const notFound = (message = 'Not Found') => new HttpError(404, message);
export const conflict = (message: string) => new HttpError(409, message);
/**
 * 412: the record changed since the version an `If-Match` header named; `current` is the record
 * as it is now, so the client can merge without another request.
 */
export const preconditionFailed = (current: object, etag: string) =>
  new HttpError(412, 'The record changed since that version (If-Match); see current.', {
    extra: { current },
    headers: { ETag: etag },
  });
/** The one message of a 503 for a dependency that is down (database, Redis, the notice fan-out). */
export const UNAVAILABLE = 'Service Unavailable';
export const serviceUnavailable = (message = UNAVAILABLE) => new HttpError(503, message);
/** 503 for a feature whose config section is absent (e.g. LLM support without `llm`). */
export const notConfigured = (message: string) =>
  new HttpError(503, message, { code: 'not_configured' });
