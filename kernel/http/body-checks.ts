/**
 * The checks every request body passes before any route sees it: its size (413, over
 * `server.bodyLimitBytes`) and its type (415, anything but JSON). Each describes the statuses it
 * gives, so the API document lists them on the operations that take a body.
 */
import type { Context, MiddlewareHandler, Next } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HttpError } from '../errors.ts';
import { describeMiddleware } from './openapi-routes.ts';

const JSON_TYPE = /^\s*application\/([\w.+-]*\+)?json\s*(;|$)/i;

/** The one 413 of a body over the limit. */
function bodyTooLarge(limitBytes: number): HttpError {
  return new HttpError(413, `Request body is too large (limit ${limitBytes} bytes).`);
}

/** Refuses a body over `limitBytes()` (read per request, so a reload applies) with 413. */
export function limitBodySize(limitBytes: () => number): MiddlewareHandler {
  const counting = bodyLimit({
    maxSize: limitBytes(),
    onError: () => {
      throw bodyTooLarge(limitBytes());
    },
  });
  // bodyLimit asks for the body stream, which makes the Node adapter build a whole web Request
  // (and a stream) per request. A GET or HEAD has no body, and a body with a Content-Length is
  // judged by that header alone, as bodyLimit itself does (Node's parser has checked the
  // framing); only a chunked body is counted while it is read.
  const check = (c: Context, next: Next) => {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    const length = c.req.header('content-length');
    if (length === undefined || c.req.header('transfer-encoding') !== undefined)
      return counting(c, next);
    if (Number.parseInt(length, 10) > limitBytes()) throw bodyTooLarge(limitBytes());
    return next();
  };
  return describeMiddleware(check, { writeErrors: [413] });
}

/** Every body this API takes is JSON; a form or text body would otherwise read as "no fields". */
export const requireJsonBody = describeMiddleware<MiddlewareHandler>(
  // Not async: a request that passes costs no promise of its own here.
  (c, next) => {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    const type = c.req.header('content-type');
    if (type && !JSON_TYPE.test(type)) {
      throw new HttpError(
        415,
        `Content-Type must be application/json (got ${type.split(';')[0]!.trim().slice(0, 100)}).`,
      );
    }
    return next();
  },
  { writeErrors: [415] },
);
