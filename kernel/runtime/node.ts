/**
 * Serving a hub on Node: `@hono/node-server`'s request listener on Node's HTTP server, the socket
 * peer as the client address, JSON answers for requests the HTTP parser refuses, and graceful
 * shutdown on SIGTERM/SIGINT: accept the connections the kernel has queued, then stop accepting,
 * answer what was received (with `Connection: close`), close idle sockets, close the hub as soon as
 * the last request is done, at the latest after `server.shutdownTimeoutMs`.
 * A fixed answer (`GET /health`), and the refusal of a client known to be blocked, are written
 * straight to Node's response (`hub.answerFixed`). The only file of the kernel (with its `node-*`
 * helpers) that uses Node's HTTP APIs.
 */
import { getRequestListener, RequestError } from '@hono/node-server';
import type { Context } from 'hono';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { errorBody } from '../errors.ts';
import type { Hub } from '../hub.ts';
import type { ResponseSent, RuntimeBindings } from '../http/access-log.ts';
import { MAX_HEADER_BYTES } from '../http/limits.ts';
import { answerClientError } from './node-client-error.ts';
import { ACCEPT_QUEUED_MAX_MS, manageConnections } from './node-connections.ts';
import { displayHost, handleServerSignals, type RunningServer } from './signals.ts';

export { displayHost, type RunningServer } from './signals.ts';
import type { KernelEnv } from '../plugin.ts';

/** The peer address of a request served by @hono/node-server. */
export function nodeClientIp(c: Context<KernelEnv>): string | undefined {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  return incoming?.socket?.remoteAddress ?? undefined;
}

/** A request the adapter cannot turn into a `Request` (e.g. a Host header that is no host). */
function requestErrorResponse(error: unknown): Response {
  if (error instanceof RequestError)
    return Response.json(errorBody(`Malformed request: ${error.message}.`, 'malformed_request'), {
      status: 400,
    });
  return Response.json(errorBody('Internal Server Error', 'internal_error'), { status: 500 });
}

/** What @hono/node-server passes with each request, plus the hook the access log reads. */
interface NodeBindings extends RuntimeBindings {
  outgoing: ServerResponse;
}

/** The size of a chunk given to `ServerResponse.write`/`end` (a callback is no chunk). */
function chunkBytes(chunk: unknown, encoding: unknown): number {
  if (typeof chunk === 'string')
    return Buffer.byteLength(
      chunk,
      typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8',
    );
  if (chunk instanceof Uint8Array) return chunk.byteLength;
  return 0;
}

/**
 * The access log's {@link ResponseSent} on Node: counts the body's bytes as the adapter writes them
 * (status line, headers and chunked framing left out) and reports when the response has closed.
 */
const responseSent: ResponseSent = (bindings) => {
  const outgoing = (bindings as NodeBindings).outgoing;
  let bytes = 0;
  const write = outgoing.write;
  const end = outgoing.end;
  outgoing.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
    bytes += chunkBytes(chunk, rest[0]);
    return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
  } as ServerResponse['write'];
  outgoing.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
    bytes += chunkBytes(chunk, rest[0]);
    return (end as (...args: unknown[]) => ServerResponse).call(this, chunk, ...rest);
  } as ServerResponse['end'];
  return (sent) => {
    const done = () => sent(bytes);
    // A client that left while the handler ran has closed the response already: report now.
    if (outgoing.closed || outgoing.destroyed) done();
    else outgoing.once('close', done);
  };
};

/** The edge's headers for every answer (`X-Request-Id`), set on the response Node writes. */
const presetHeader: RuntimeBindings['presetHeader'] = (bindings, name, value) =>
  (bindings as NodeBindings).outgoing.setHeader(name, value);

/** A Host the adapter takes as it is (its own test): anything else it checks, so goes through it. */
const PLAIN_HOST = /^[a-z0-9._-]+(?::(?:[1-5]\d{3,4}|[6-9]\d{3}))?$/;

/**
 * A request header as `c.req.header` reads it: repeated ones joined. Node joins most itself, but
 * keeps only the first of a few (`Authorization` among them) where the adapter keeps them all.
 */
const headerOf = (req: IncomingMessage) => (name: string) => {
  if (name === 'authorization') return req.headersDistinct.authorization?.join(', ');
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
};

/**
 * Writes the hub's fixed answer (`GET /health`) or its refusal of a client known to be blocked
 * (http/blocked.ts) straight to the response, without the adapter's `Request` and `Response` and
 * without the app (http/edge.ts gives the same answer, request id, metrics and access line); false
 * when the request has none, or has a Host the adapter would check (and might refuse with 400).
 */
function answerFixed(hub: Hub, req: IncomingMessage, res: ServerResponse): boolean {
  const host = req.headers.host;
  if (host === undefined || !PLAIN_HOST.test(host)) return false;
  const reply = hub.answerFixed(
    req.method ?? '',
    req.url ?? '',
    headerOf(req),
    () => req.socket?.remoteAddress ?? 'unknown',
  );
  if (!reply) return false;
  res.writeHead(reply.status, reply.headers);
  res.end(reply.body);
  reply.written();
  return true;
}

export async function serveNode(
  hub: Hub,
  options: { host?: string; port?: number } = {},
): Promise<RunningServer> {
  const host = options.host ?? hub.config().server.host;
  const port = options.port ?? hub.config().server.port;
  // Node would answer a missing Host with an empty 400 of its own; the listener answers in JSON.
  const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES, requireHostHeader: false });
  const connections = manageConnections(server);
  const fetchListener = getRequestListener(
    (request, bindings) =>
      hub.fetch(request, Object.assign(bindings, { responseSent, presetHeader })),
    {
      hostname: host,
      errorHandler: requestErrorResponse,
    },
  );
  server.on(
    'request',
    connections.listener((req, res) => {
      if (req.headers.host === undefined && req.httpVersion === '1.1') {
        const body = JSON.stringify(
          errorBody('Malformed request: the Host header is missing.', 'malformed_request'),
        );
        res.writeHead(400, {
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(body),
          Connection: 'close',
        });
        res.end(body);
        return;
      }
      if (!answerFixed(hub, req, res)) void fetchListener(req, res);
    }),
  );
  server.on('clientError', answerClientError);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  let stopping: Promise<void> | null = null;
  const stop = () => {
    stopping ??= (async () => {
      const timeout = hub.config().server.shutdownTimeoutMs;
      const deadlineAt = performance.now() + timeout;
      // Streams (notices, LLM) say goodbye and end, so the drain below waits only for requests.
      hub.beginShutdown();
      // Connections still in the kernel's accept queue would be reset when the listener closes:
      // accept them first (they get the idle grace, and an answer when their request is there).
      // Answers meanwhile keep their connection, so keep-alive clients do not reconnect into a
      // queue that is about to be reset.
      await connections.acceptQueued(Math.min(ACCEPT_QUEUED_MAX_MS, timeout));
      // Answers from now on close their connection, so keep-alive clients stop sending here; they
      // reconnect to a closed listener, which refuses them.
      connections.drain();
      // Stops accepting; resolves once every connection is closed (idle ones after a short grace).
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      let timer: ReturnType<typeof setTimeout> | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(
          () => {
            hub.log.warn('Shutdown timeout reached; closing remaining connections', {
              timeoutMs: timeout,
            });
            server.closeAllConnections();
            resolve();
          },
          Math.max(0, deadlineAt - performance.now()),
        );
      });
      await Promise.race([closed, deadline]);
      clearTimeout(timer);
      await hub.close();
    })();
    return stopping;
  };
  return {
    address,
    url: `http://${displayHost(host)}:${address.port}`,
    stop,
    reload: () => hub.reload(),
  };
}

/**
 * Stops the server on SIGTERM or SIGINT, then exits (a second signal exits at once); SIGHUP reloads
 * the config file. Returns a function that removes the handlers.
 */
export function handleSignals(
  running: RunningServer,
  log: Hub['log'],
  exit: (code: number) => void = (code) => process.exit(code),
): () => void {
  return handleServerSignals(
    {
      on: (signal, handler) => process.on(signal, handler),
      off: (signal, handler) => process.off(signal, handler),
    },
    running,
    log,
    exit,
  );
}
