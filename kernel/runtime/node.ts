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
import type { KernelEnv } from '../plugin.ts';

/** The peer address of a request served by @hono/node-server. */
export function nodeClientIp(c: Context<KernelEnv>): string | undefined {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  return incoming?.socket?.remoteAddress ?? undefined;
}

export interface RunningServer {
  /** The bound address (the port is real even when 0 was asked for). */
  address: AddressInfo;
  url: string;
  /** Stops accepting, waits for requests in flight (up to the timeout), then closes the hub. */
  stop(): Promise<void>;
  /** Re-reads and applies the config file (what SIGHUP does); the hub logs the outcome. */
  reload(): Promise<unknown>;
}

/** `0.0.0.0` and `::` bind everywhere; people reach them on loopback. */
export function displayHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
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
  let received = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (received) return exit(1);
    received = true;
    log.info(`Received ${signal}; shutting down`);
    running.stop().then(
      () => exit(0),
      (error) => {
        log.error('Shutdown failed', { error });
        exit(1);
      },
    );
  };
  // The reload logs its own one-line outcome and never throws.
  const onHangup = () => void running.reload();
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  process.on('SIGHUP', onHangup);
  return () => {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    process.off('SIGHUP', onHangup);
  };
}
