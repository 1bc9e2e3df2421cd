/**
 * What both runtimes share: the running-server handle, the loopback name of a wildcard bind, and the
 * signal policy (SIGTERM/SIGINT stop gracefully and a second one exits at once; SIGHUP reloads).
 * Each runtime only says how to listen for a signal and how to exit.
 */
import type { Hub } from '../hub.ts';

export interface RunningServer {
  /** The bound address (the port is real even when 0 was asked for). */
  address: { address: string; family: string; port: number };
  url: string;
  /**
   * Stops accepting, answers the requests in flight with `Connection: close`, closes idle
   * connections, and closes the hub as soon as the last one is done (at the latest after
   * `server.shutdownTimeoutMs`).
   */
  stop(): Promise<void>;
  /** Re-reads and applies the config file (what SIGHUP does); the hub logs the outcome. */
  reload(): Promise<unknown>;
}

/** `0.0.0.0` and `::` bind everywhere; people reach them on loopback. */
export function displayHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

export type ServerSignal = 'SIGTERM' | 'SIGINT' | 'SIGHUP';

/** How a runtime delivers signals. */
export interface SignalSource {
  on(signal: ServerSignal, handler: () => void): void;
  off(signal: ServerSignal, handler: () => void): void;
}

/** Installs the signal policy on `source`; returns a function that removes the handlers. */
export function handleServerSignals(
  source: SignalSource,
  running: RunningServer,
  log: Hub['log'],
  exit: (code: number) => void,
): () => void {
  let received = false;
  const stopOn = (signal: ServerSignal) => () => {
    if (received) return exit(1);
    received = true;
    log.info(`Received ${signal}; shutting down`);
    running.stop().then(
      () => {
        log.info('Stopped.');
        exit(0);
      },
      (error) => {
        log.error('Shutdown failed', { error });
        exit(1);
      },
    );
  };
  // The reload logs its own one-line outcome and never throws.
  const handlers = [
    ['SIGTERM', stopOn('SIGTERM')],
    ['SIGINT', stopOn('SIGINT')],
    ['SIGHUP', () => void running.reload()],
  ] as const;
  for (const [signal, handler] of handlers) source.on(signal, handler);
  return () => {
    for (const [signal, handler] of handlers) source.off(signal, handler);
  };
}
