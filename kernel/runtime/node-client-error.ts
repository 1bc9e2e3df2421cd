/**
 * Answers for requests Node's HTTP parser refuses before the hub sees them (`clientError`): a real
 * HTTP/1.1 response with a JSON `{ "error", "code" }` body and the right status — 400 for a malformed
 * request, 414 for a URL too long, 431 for headers too large, 408 for a head that never completes —
 * then a lingering close, so a client still sending is not reset before it reads the answer.
 */
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import { codeOfStatus, errorBody } from '../errors.ts';
import { HEADERS_TOO_LARGE_MESSAGE, MAX_URL_BYTES, URL_TOO_LONG_MESSAGE } from '../http/limits.ts';
import { lingeringClose } from './node-connections.ts';

/** What Node attaches to a parser error. */
interface ParserError extends Error {
  code?: string;
  reason?: string;
  rawPacket?: Buffer;
}

const MALFORMED: Record<string, string> = {
  HPE_INVALID_TRANSFER_ENCODING: 'Malformed request: the Transfer-Encoding header is invalid.',
  HPE_UNEXPECTED_CONTENT_LENGTH:
    'Malformed request: Content-Length and Transfer-Encoding must not both be sent.',
  HPE_INVALID_CONTENT_LENGTH: 'Malformed request: the Content-Length header is invalid.',
  HPE_INVALID_CHUNK_SIZE: 'Malformed request: a chunk size of the body is invalid.',
  HPE_INVALID_URL: 'Malformed request: the URL contains a character that is not allowed.',
  HPE_INVALID_METHOD: 'Malformed request: the method is invalid.',
  HPE_INVALID_VERSION: 'Malformed request: the HTTP version is invalid or not supported.',
  HPE_INVALID_HEADER_TOKEN:
    'Malformed request: a header name or value contains a character that is not allowed.',
};

/**
 * A head over Node's limit is a long URL (414) when the chunk the parser stopped in starts with a
 * request line longer than the URL limit, and headers too large (431) otherwise.
 */
function overflowStatus(error: ParserError): 414 | 431 {
  const packet = error.rawPacket;
  if (!packet || !/^[A-Z]+ /.test(packet.subarray(0, 24).toString('latin1'))) return 431;
  const lineEnd = packet.indexOf(0x0a);
  return lineEnd < 0 || lineEnd > MAX_URL_BYTES ? 414 : 431;
}

/** The status and message for a parser error. */
export function describeClientError(error: ParserError): { status: number; message: string } {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW': {
      const status = overflowStatus(error);
      return { status, message: status === 414 ? URL_TOO_LONG_MESSAGE : HEADERS_TOO_LARGE_MESSAGE };
    }
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, message: 'Chunk extensions of the request body are too large.' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, message: 'The request did not arrive in time.' };
  }
  const known = error.code ? MALFORMED[error.code] : undefined;
  if (known) return { status: 400, message: known };
  // Node's reason names the part, e.g. "Invalid header value char".
  const reason = (error.reason ?? '').replaceAll('`', '').trim();
  return { status: 400, message: reason ? `Malformed request: ${reason}.` : 'Malformed request.' };
}

/** One HTTP/1.1 response with a JSON error body that closes the connection. */
function rawJsonError(status: number, message: string): string {
  // Every 400 here is a request the parser could not read; other statuses have their own code.
  const body = JSON.stringify(
    errorBody(message, status === 400 ? 'malformed_request' : codeOfStatus(status)),
  );
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

const answered = new WeakSet<Duplex>();

/** The server's `clientError` listener. */
export function answerClientError(error: ParserError, socket: Duplex): void {
  // The parser repeats its error for every later chunk; the first answer is the only one.
  if (answered.has(socket)) return;
  answered.add(socket);
  const inFlight = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const { status, message } = describeClientError(error);
  socket.write(rawJsonError(status, message));
  lingeringClose(socket as Socket);
}
