/**
 * Serving a hub on Deno: `Deno.serve`, the peer address as the client address, graceful shutdown
 * on SIGTERM/SIGINT (stop accepting, let requests in flight finish, close the hub) bounded by
 * `server.shutdownTimeoutMs`, and SIGHUP to reload the config file. The only file of the kernel
 * that uses Deno's APIs; it is loaded on Node too (by `start`), so it touches `Deno` only when called.
 */
import type { Context } from 'hono';
import type { Hub } from '../hub.ts';
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
    handler: (request: Request, info: { remoteAddr: { hostname: string } }) => Response | Promise<Response>,
  ): DenoServer;
  addSignalListener(signal: string, handler: () => void): void;
  removeSignalListener(signal: string, handler: () => void): void;
  exit(code: number): never;
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

export async function serveDeno(hub: Hub, options: { host?: string; port?: number } = {}): Promise<RunningServer> {
  const host = options.host ?? hub.config().server.host;
  const port = options.port ?? hub.config().server.port;
  let listening!: () => void;
  const ready = new Promise<void>((resolve) => (listening = resolve));
  // The connection info travels as the env, where denoClientIp finds the peer address.
  const server = deno().serve({ hostname: host, port, onListen: () => listening() }, (request, info) => hub.fetch(request, { remoteAddr: info.remoteAddr }));
  await ready;
  let stopping: Promise<void> | null = null;
  const stop = () => {
    stopping ??= (async () => {
      const timeout = hub.config().server.shutdownTimeoutMs;
      // Streams (notices) end first, so the drain below waits only for ordinary requests.
      hub.beginShutdown();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          hub.log.warn('Shutdown timeout reached; closing remaining connections', { timeoutMs: timeout });
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
  const address = { address: server.addr.hostname, family: server.addr.hostname.includes(':') ? 'IPv6' : 'IPv4', port: server.addr.port };
  return { address, url: `http://${displayHost(host)}:${server.addr.port}`, stop, reload: () => hub.reload() };
}

/**
 * Stops the server on SIGTERM or SIGINT, then exits (a second signal exits at once); SIGHUP reloads
 * the config file. Returns a function that removes the handlers.
 */
export function handleDenoSignals(running: RunningServer, log: Hub['log'], exit: (code: number) => void = (code) => deno().exit(code)): () => void {
  return handleServerSignals(
    { on: (signal, handler) => deno().addSignalListener(signal, handler), off: (signal, handler) => deno().removeSignalListener(signal, handler) },
    running,
    log,
    exit,
  );
}
