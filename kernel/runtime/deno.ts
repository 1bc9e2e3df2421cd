/**
 * Serving a hub on Deno: `Deno.serve`, the peer address as the client address, graceful shutdown
 * on SIGTERM/SIGINT bounded by `server.shutdownTimeoutMs`, and SIGHUP to reload the config file.
 * The only file of the kernel that uses Deno's APIs; it is loaded on Node too (by `start`), so it
 * touches `Deno` only when called.
 *
 * Shutdown as close to the Node runtime as Deno allows: from the signal on, every answer carries
 * `Connection: close`, so busy keep-alive connections close after their answer; after a short grace
 * `shutdown()` stops accepting, closes the connections still idle and waits for requests in flight.
 * Deno answers requests its parser refuses itself (an empty 400) and offers no hook to change that.
 */
import type { Context } from 'hono';
import type { Hub } from '../hub.ts';
import type { ResponseSent, RuntimeBindings } from '../http/access-log.ts';
import type { KernelEnv } from '../plugin.ts';
import { displayHost, handleServerSignals, type RunningServer } from './signals.ts';

/** The little of Deno's API we use; Node's type checker has no `Deno` global. */
interface DenoServer {
  addr: { hostname: string; port: number };
  finished: Promise<void>;
  shutdown(): Promise<void>;
}
interface DenoApi {
  serve(
    options: { hostname: string; port: number; onListen?: () => void; signal?: AbortSignal },
    handler: (
      request: Request,
      info: { remoteAddr: { hostname: string } },
    ) => Response | Promise<Response>,
  ): DenoServer;
  addSignalListener(signal: string, handler: () => void): void;
  removeSignalListener(signal: string, handler: () => void): void;
  exit(code: number): never;
}

/** How long answers close their connections before `shutdown()` closes the idle ones. */
const DRAIN_GRACE_MS = 200;

/** The answer with `Connection: close` (Deno's server then closes the connection after it). */
function closingConnection(response: Response): Response {
  try {
    response.headers.set('Connection', 'close');
    return response;
  } catch {
    // Immutable headers (a response passed through from fetch): copy them.
    const headers = new Headers(response.headers);
    headers.set('Connection', 'close');
    return new Response(response.body, {
      status: response.status,
      statusText: response.statusText,
      headers,
    });
  }
}

/** The bindings of one request: the peer, and where the access log left its report. */
interface DenoBindings extends RuntimeBindings {
  remoteAddr: { hostname: string };
  report?: (bytes: number | undefined) => void;
}

/** The access log's {@link ResponseSent} on Deno: {@link countedBody} reports when the body ends. */
const responseSent: ResponseSent = (bindings) => (sent) => {
  (bindings as DenoBindings).report = sent;
};

/**
 * The answer with its body counted as Deno reads it: `sent` gets the body's bytes once it has been
 * read to its end, failed, or been cancelled (the client left).
 */
function countedBody(response: Response, sent: (bytes: number) => void): Response {
  const source = response.body;
  if (!source) {
    sent(0);
    return response;
  }
  const reader = source.getReader();
  let bytes = 0;
  let reported = false;
  const report = () => {
    if (reported) return;
    reported = true;
    sent(bytes);
  };
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          controller.close();
          report();
          return;
        }
        bytes += value.byteLength;
        controller.enqueue(value);
      } catch (error) {
        report();
        controller.error(error);
      }
    },
    cancel(reason) {
      report();
      return reader.cancel(reason);
    },
  });
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/** Whether this process is Deno. */
export const onDeno = typeof (globalThis as { Deno?: unknown }).Deno !== 'undefined';

function deno(): DenoApi {
  return (globalThis as unknown as { Deno: DenoApi }).Deno;
}

/** The peer address of a request served by {@link serveDeno}. */
export function denoClientIp(c: Context<KernelEnv>): string | undefined {
  return (c.env as { remoteAddr?: { hostname?: string } } | undefined)?.remoteAddr?.hostname;
}

export async function serveDeno(
  hub: Hub,
  options: { host?: string; port?: number } = {},
): Promise<RunningServer> {
  const host = options.host ?? hub.config().server.host;
  const port = options.port ?? hub.config().server.port;
  let listening!: () => void;
  const ready = new Promise<void>((resolve) => (listening = resolve));
  let draining = false;
  // The connection info travels as the env, where denoClientIp finds the peer address, with the
  // access log's hook: its line waits until the body has been read, and counts it.
  const server = deno().serve(
    { hostname: host, port, onListen: () => listening() },
    async (request, info) => {
      const bindings: DenoBindings = { remoteAddr: info.remoteAddr, responseSent };
      let response = await hub.fetch(request, bindings);
      if (bindings.report) response = countedBody(response, bindings.report);
      return draining ? closingConnection(response) : response;
    },
  );
  await ready;
  let stopping: Promise<void> | null = null;
  const stop = () => {
    stopping ??= (async () => {
      const timeout = hub.config().server.shutdownTimeoutMs;
      // Answers from now on close their connection, so keep-alive clients stop sending here.
      draining = true;
      // Streams (notices, LLM) say goodbye and end, so the drain below waits only for requests.
      hub.beginShutdown();
      // Connections busy at the signal get their closing answer before shutdown() drops idle ones.
      await new Promise((resolve) => setTimeout(resolve, Math.min(DRAIN_GRACE_MS, timeout)));
      let timer: ReturnType<typeof setTimeout> | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          hub.log.warn('Shutdown timeout reached; closing remaining connections', {
            timeoutMs: timeout,
          });
          resolve();
        }, timeout);
      });
      // shutdown() stops accepting and resolves once requests in flight have finished.
      await Promise.race([server.shutdown(), deadline]);
      clearTimeout(timer);
      await hub.close();
    })();
    return stopping;
  };
  const address = {
    address: server.addr.hostname,
    family: server.addr.hostname.includes(':') ? 'IPv6' : 'IPv4',
    port: server.addr.port,
  };
  return {
    address,
    url: `http://${displayHost(host)}:${server.addr.port}`,
    stop,
    reload: () => hub.reload(),
  };
}

/**
 * Stops the server on SIGTERM or SIGINT, then exits (a second signal exits at once); SIGHUP reloads
 * the config file. Returns a function that removes the handlers.
 */
export function handleDenoSignals(
  running: RunningServer,
  log: Hub['log'],
  exit: (code: number) => void = (code) => deno().exit(code),
): () => void {
  return handleServerSignals(
    {
      on: (signal, handler) => deno().addSignalListener(signal, handler),
      off: (signal, handler) => deno().removeSignalListener(signal, handler),
    },
    running,
    log,
    exit,
  );
}
