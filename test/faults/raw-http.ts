/**
 * A raw HTTP/1.1 client on a `net` socket, for requests no well-behaved client library would send
 * (malformed framing, bytes outside ASCII, huge heads) and for seeing exactly what came back:
 * the bytes of the answer, and whether the connection ended cleanly or was reset.
 */
import { connect, type Socket } from 'node:net';

export interface RawAnswer {
  /** Everything the server sent, in order. */
  bytes: Buffer;
  /** The socket error seen while writing or reading (e.g. ECONNRESET, EPIPE), if any. */
  error?: string;
}

export interface ParsedAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface RawOptions {
  /** Bytes written after the head, in chunks of this many bytes (backpressure respected). */
  body?: { size: number; chunk?: number };
  /** Give up waiting for the server after this long. @default 10000 */
  timeoutMs?: number;
}

/** Sends `head` (and optionally a body), reads until the server closes, and reports what happened. */
export function rawExchange(
  port: number,
  head: string | Buffer,
  options: RawOptions = {},
): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket: Socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    let error: string | undefined;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ bytes: Buffer.concat(chunks), ...(error ? { error } : {}) });
    };
    const timer = setTimeout(() => {
      error ??= 'TIMEOUT';
      finish();
    }, options.timeoutMs ?? 10_000);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', (e: NodeJS.ErrnoException) => {
      error ??= e.code ?? e.message;
    });
    socket.on('close', finish);
    socket.on('connect', async () => {
      socket.write(head);
      const body = options.body;
      if (!body) return;
      const piece = Buffer.alloc(body.chunk ?? 64 * 1024, 'x');
      for (
        let sent = 0;
        sent < body.size && !socket.destroyed && socket.writable;
        sent += piece.length
      ) {
        const last = Math.min(piece.length, body.size - sent);
        if (!socket.write(last === piece.length ? piece : piece.subarray(0, last))) {
          await new Promise((r) => {
            socket.once('drain', r);
            socket.once('close', r);
          });
        }
      }
    });
  });
}

/** Parses one HTTP/1.1 answer; throws when the bytes are not one. */
export function parseAnswer(bytes: Buffer): ParsedAnswer {
  const text = bytes.toString('latin1');
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) throw new Error(`not an HTTP answer: ${JSON.stringify(text.slice(0, 200))}`);
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const match = /^HTTP\/1\.1 (\d{3}) /.exec(statusLine!);
  if (!match) throw new Error(`not an HTTP status line: ${JSON.stringify(statusLine)}`);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = bytes.subarray(end + 4);
  if (headers['content-length'] !== undefined)
    body = body.subarray(0, Number(headers['content-length']));
  return { status: Number(match[1]), headers, body: body.toString('utf8') };
}
