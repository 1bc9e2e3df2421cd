/**
 * The one error serializer: every failure body is `{ "error": "<message>", "code": "<code>" }`.
 * Deliberate errors keep their status, message and code; anything unexpected is logged with the
 * request id and masked as 500.
 */
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { codeOfStatus, errorBody, HttpError, UNAVAILABLE } from '../errors.ts';
import { unavailableDependency } from '../outage.ts';
import type { KernelEnv } from '../plugin.ts';
import type { RuntimeBindings } from './access-log.ts';
import { StorageError } from '../storage/contract.ts';

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  404: 'Not Found',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
};

/** `Retry-After` of a 503 for a dependency that is down. */
const RETRY_AFTER_SECONDS = '1';

export function serializeError(error: Error, c: Context<KernelEnv>): Response {
  if (error instanceof HttpError) {
    const body = errorBody(error.message, error.code, error.extra);
    // Where the runtime sets headers itself (Node), the error's go there: with them the answer
    // would be built on a `Headers` object, the dearest part of a refusal (401, 429). No route
    // sets a header of one of these names before it fails, so the answer is the same.
    const runtime = c.env as RuntimeBindings | undefined;
    if (!runtime?.presetHeader) return c.json(body, error.status, error.headers);
    for (const name in error.headers) runtime.presetHeader(runtime, name, error.headers[name]!);
    return c.json(body, error.status);
  }
  if (error instanceof HTTPException) {
    // Raised by Hono itself: its validator's "Malformed JSON in request body" is the only 400.
    const status = error.status as ContentfulStatusCode;
    const message = error.message || STATUS_TEXT[status] || 'Request failed';
    return c.json(
      errorBody(message, status === 400 ? 'malformed_json' : codeOfStatus(status)),
      status,
    );
  }
  // A dependency (database, Redis) is down: one wording for all of them, as `serviceUnavailable()`.
  // Not logged per request; kernel/outage.ts logs the outage once, with its cause. While the
  // dependency's circuit breaker is open these answers are immediate, and its probe runs several
  // times a second, so a second is a fair time to come back.
  if (unavailableDependency(error))
    return c.json(errorBody(UNAVAILABLE, 'service_unavailable'), 503, {
      'Retry-After': RETRY_AFTER_SECONDS,
    });
  const log = c.get('log');
  // A value no database can store (a NUL character); the message names the column.
  if (error instanceof StorageError && error.code === 'invalid')
    return c.json(errorBody(error.message, 'validation_failed'), 400);
  if (error instanceof StorageError && error.code === 'conflict') {
    // Still conflicting after the retries: the client may try again; nothing was written.
    log?.warn('Write conflict', { error: error.message });
    return c.json(
      errorBody('The change conflicted with a concurrent change; try again.', 'write_conflict'),
      409,
    );
  }
  (log ?? console).error('Unhandled error', { method: c.req.method, path: c.req.path, error });
  return c.json(errorBody('Internal Server Error', 'internal_error'), 500);
}
