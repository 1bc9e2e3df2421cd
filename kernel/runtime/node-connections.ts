/**
 * The connections of Node's HTTP server, so a graceful stop resets nothing it had received:
 * connections the kernel has queued are accepted before the listener closes (closing it resets
 * them); each socket knows whether a request is in progress on it; once draining, every answer says
 * `Connection: close` (and the socket closes after it), and only sockets that are truly idle — no
 * request in progress and no byte of a new one read — are closed, after a short grace so bytes
 * already on their way are read first. Closing is always a lingering close: send our FIN, keep
 * reading and discarding what the client still sends, and destroy the socket only once the client
 * has closed its side (or after a bound). Destroying a socket with unread bytes makes the kernel
 * send a reset, which can throw away the answer the client had not read yet (the EPIPE/ECONNRESET
 * instead of a 413).
 */
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { finished } from 'node:stream';

/** How long an idle keep-alive socket may still bring a request once draining has begun. */
const IDLE_GRACE_MS = 100;
/** How long a closing socket keeps reading what the client still sends before it is destroyed. */
const LINGER_MS = 5_000;
/**
 * How long the listener may go on accepting while every turn of the event loop still brings a
 * connection. libuv accepts one connection per turn, and a turn lasts as long as the requests it
 * handles, so a queue of a few dozen new connections can take a hundred milliseconds.
 */
export const ACCEPT_QUEUED_MAX_MS = 1_000;

interface Connection {
  /** Requests received on this socket whose answer or body is not finished yet. */
  active: number;
  /** `socket.bytesRead` when the last request finished: more means a new request is arriving. */
  idleAt: number;
  /** Answers not yet finished, to mark `Connection: close` on those whose head is not sent. */
  responses: Set<ServerResponse>;
}

const lingering = new WeakSet<Socket>();

/**
 * Ends our side of `socket` once what was written is flushed, reads and drops whatever the client
 * still sends, and destroys the socket when the client closes its side, or after {@link LINGER_MS}.
 */
export function lingeringClose(socket: Socket): void {
  if (socket.destroyed || lingering.has(socket)) return;
  lingering.add(socket);
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  const destroyWhenFlushed = () => {
    if (socket.writableFinished) socket.destroy();
    else socket.once('finish', () => socket.destroy());
  };
  if (socket.readableEnded) destroyWhenFlushed();
  else socket.once('end', destroyWhenFlushed);
  // Bytes nobody consumes (after a parser error, or past a request's end) would stall reading.
  socket.on('error', () => socket.destroy());
  socket.end();
  socket.resume();
}

export interface ConnectionManager {
  /** Wraps the request listener so each request is counted against its socket. */
  listener(inner: RequestListener): RequestListener;
  /** Starts draining: answers from now on close their connection; idle sockets are closed. */
  drain(): void;
  /**
   * Resolves, in the check phase, once a poll phase of the event loop has accepted no new
   * connection (at the latest after `maxMs`): every connection the kernel had queued on the
   * listening socket is then a socket of ours. Close the listener right then, in the same tick —
   * the kernel resets the connections still queued when it closes.
   */
  acceptQueued(maxMs: number): Promise<void>;
}

export function manageConnections(server: Server): ConnectionManager {
  const connections = new Map<Socket, Connection>();
  let draining = false;
  /** Connections accepted so far, to tell whether a turn of the event loop accepted any. */
  let accepted = 0;

  const closeIfIdle = (socket: Socket) => {
    const connection = connections.get(socket);
    if (!connection || connection.active > 0 || socket.destroyed) return;
    // Bytes of a new request arrived: it will be answered (with Connection: close) and close then.
    // A head that never completes ends by Node's headersTimeout or the shutdown deadline.
    if (socket.bytesRead !== connection.idleAt) return;
    lingeringClose(socket);
  };
  // The check runs in the check phase after a poll phase: when the event loop was blocked (a long
  // query on the embedded database), a timer alone fires before the bytes that arrived meanwhile
  // are read, and the socket would look idle with a request in its buffer.
  const closeIdleSoon = (socket: Socket) =>
    setTimeout(() => setImmediate(() => closeIfIdle(socket)), IDLE_GRACE_MS).unref();

  server.on('connection', (socket: Socket) => {
    accepted++;
    connections.set(socket, { active: 0, idleAt: 0, responses: new Set() });
    // Node calls destroySoon after an answer that closes the connection; destroying a socket the
    // client is still writing to (a body over the limit) resets it before the answer is read.
    socket.destroySoon = () => lingeringClose(socket);
    socket.once('close', () => connections.delete(socket));
    if (draining) closeIdleSoon(socket);
  });
  // Node's close() calls this to drop "idle" sockets at once, including those whose next request
  // has arrived but is not parsed yet; draining decides for itself which sockets are idle.
  server.closeIdleConnections = () => {
    for (const socket of connections.keys()) closeIdleSoon(socket);
  };

  return {
    listener: (inner) => (req: IncomingMessage, res: ServerResponse) => {
      const socket = req.socket;
      const connection = connections.get(socket);
      if (connection) {
        connection.active++;
        connection.responses.add(res);
        // The request counts until both its answer and its body are done with.
        let parts = 2;
        const done = () => {
          if (--parts > 0) return;
          connection.active--;
          connection.idleAt = socket.bytesRead;
          if (draining) closeIdleSoon(socket);
        };
        res.once('close', () => {
          connection.responses.delete(res);
          done();
        });
        finished(req, { writable: false }, done);
      }
      if (draining) res.setHeader('Connection', 'close');
      inner(req, res);
    },
    drain() {
      if (draining) return;
      draining = true;
      for (const connection of connections.values()) {
        for (const res of connection.responses)
          if (!res.headersSent) res.setHeader('Connection', 'close');
      }
    },
    acceptQueued(maxMs) {
      const until = performance.now() + maxMs;
      return new Promise((resolve) => {
        // libuv accepts in the poll phase, one connection per turn; the check phase follows it.
        // The first immediate may run before any poll phase (called from one), so it only counts.
        let seen = accepted;
        const check = () => {
          if (accepted === seen || performance.now() >= until) return resolve();
          seen = accepted;
          setImmediate(check);
        };
        setImmediate(() => {
          seen = accepted;
          setImmediate(check);
        });
      });
    },
  };
}
