/**
 * Serving a hub on Node: `@hono/node-server`, the socket peer as the client address, and graceful
 * shutdown on SIGTERM/SIGINT (stop accepting, let requests in flight finish, close the hub),
 * bounded by `server.shutdownTimeoutMs`. The only file of the kernel that uses Node's HTTP APIs.
 */
import { serve, type ServerType } from '@hono/node-server';
import type { Context } from 'hono';
import type { AddressInfo } from 'node:net';
import type { IncomingMessage } from 'node:http';
import type { Hub } from '../hub.ts';
import { displayHost, handleServerSignals, type RunningServer } from './signals.ts';

export { displayHost, type RunningServer } from './signals.ts';
import type { KernelEnv } from '../plugin.ts';

/** The peer address of a request served by @hono/node-server. */
export function nodeClientIp(c: Context<KernelEnv>): string | undefined {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  return incoming?.socket?.remoteAddress ?? undefined;
}

export async function serveNode(hub: Hub, options: { host?: string; port?: number } = {}): Promise<RunningServer> {
  const host = options.host ?? hub.config().server.host;
  const port = options.port ?? hub.config().server.port;
  const server: ServerType = await new Promise((resolve, reject) => {
    const s = serve({ fetch: hub.fetch, hostname: host, port }, () => resolve(s));
    s.once('error', reject);
  });
  const address = server.address() as AddressInfo;
  let stopping: Promise<void> | null = null;
  const stop = () => {
    stopping ??= (async () => {
      const timeout = hub.config().server.shutdownTimeoutMs;
      // Streams (notices) end first, so the drain below waits only for ordinary requests.
      hub.beginShutdown();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Idle keep-alive sockets would hold close() open; in-flight requests still finish.
      (server as { closeIdleConnections?: () => void }).closeIdleConnections?.();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          hub.log.warn('Shutdown timeout reached; closing remaining connections', { timeoutMs: timeout });
          (server as { closeAllConnections?: () => void }).closeAllConnections?.();
          resolve();
        }, timeout);
      });
      await Promise.race([closed, deadline]);
      clearTimeout(timer);
      await hub.close();
    })();
    return stopping;
  };
  return { address, url: `http://${displayHost(host)}:${address.port}`, stop, reload: () => hub.reload() };
}

/**
 * Stops the server on SIGTERM or SIGINT, then exits (a second signal exits at once); SIGHUP reloads
 * the config file. Returns a function that removes the handlers.
 */
export function handleSignals(running: RunningServer, log: Hub['log'], exit: (code: number) => void = (code) => process.exit(code)): () => void {
  return handleServerSignals({ on: (signal, handler) => process.on(signal, handler), off: (signal, handler) => process.off(signal, handler) }, running, log, exit);
}
