/**
 * Who the client is: its address (the socket peer, or with `server.trustProxy` the hop our proxy
 * appended), whether it is on this host (for `/metrics` without a token), and the one-time warning
 * when requests come through a proxy whose client address the hub does not read.
 */
import type { Context } from 'hono';
import type { HubConfig } from '../config/load.ts';
import type { Logger } from '../log.ts';
import type { KernelEnv } from '../plugin.ts';

/**
 * The right-most `X-Forwarded-For` entry: the one our proxy appended. Entries left of it are
 * whatever the client sent, and trusting them would let a client pick its own throttle key.
 */
function proxyAppended(header: HeaderOf): string | undefined {
  return header('x-forwarded-for')?.split(',').at(-1)?.trim() || undefined;
}

/** A request header by its lower-case name. */
export type HeaderOf = (name: string) => string | undefined;

/**
 * The client's address from the request's headers and its socket peer: with `trustProxy`, the
 * proxy's last hop when there is one; otherwise the peer. The one rule for both the app
 * ({@link clientIpResolver}) and a runtime that answers before it (edge.ts).
 */
export function clientAddress(
  trustProxy: boolean,
  header: HeaderOf,
  peer: () => string | undefined,
): string {
  return (trustProxy ? proxyAppended(header) : undefined) ?? peer() ?? 'unknown';
}

/** The proxy headers the request carries (`X-Forwarded-For`, RFC 7239 `Forwarded`), by name. */
function forwardedHeaders(header: HeaderOf): string[] {
  const names: string[] = [];
  if (header('x-forwarded-for') !== undefined) names.push('X-Forwarded-For');
  if (header('forwarded') !== undefined) names.push('Forwarded');
  return names;
}

/** The client's address: the socket peer, or with `server.trustProxy` the proxy's last hop. */
export function clientIpResolver(
  config: () => HubConfig,
  fromRuntime?: (c: Context<KernelEnv>) => string | undefined,
) {
  // Asked by every authenticated request: no closures unless a proxy's hop is to be read.
  return (c: Context<KernelEnv>): string =>
    config().server.trustProxy
      ? clientAddress(
          true,
          (name) => c.req.header(name),
          () => fromRuntime?.(c),
        )
      : (fromRuntime?.(c) ?? 'unknown');
}

const LOOPBACK_V4 = /^(?:::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/i;

/** 127.0.0.0/8, `::1`, or a 127.x address mapped into IPv6 (`::ffff:127.0.0.1`). */
function isLoopback(address: string): boolean {
  return address === '::1' || address === '0:0:0:0:0:0:0:1' || LOOPBACK_V4.test(address);
}

/**
 * Whether the client of this request is on this host, by the address the hub computes (with
 * `server.trustProxy`, the proxy's last hop). A request that came through a proxy whose hop the
 * hub does not read (trustProxy off, or only a `Forwarded` header) is never local: its socket peer
 * is the proxy, which on the same host would make every client look local.
 */
export function fromLoopback(
  c: Context<KernelEnv>,
  config: () => HubConfig,
  clientIp: (c: Context<KernelEnv>) => string,
): boolean {
  const hopRead =
    config().server.trustProxy && proxyAppended((name) => c.req.header(name)) !== undefined;
  if (!hopRead && forwardedHeaders((name) => c.req.header(name)).length > 0) return false;
  return isLoopback(clientIp(c));
}

/**
 * One warning per hub when requests arrive through a proxy whose client address the hub does not
 * read: then every client behind the proxy shares the proxy's address, so one client's failed
 * tokens or invitation secrets block them all. Header values are never logged.
 */
export function warnUntrustedProxy(
  log: Logger,
  config: () => HubConfig,
): (header: HeaderOf, peer: () => string) => boolean {
  // Returns true once it has warned: the edge (edge.ts) then stops asking. `peer`: the socket's
  // address, which is the client address in both cases (no X-Forwarded-For hop is read).
  return (header, peer) => {
    const headers = forwardedHeaders(header);
    const trustProxy = config().server.trustProxy;
    if (headers.length > 0 && !trustProxy) {
      log.warn(
        `Requests arrive through a proxy (${headers.join(', ')}) but server.trustProxy is off: every client behind the proxy shares the proxy's address, so one client's failed tokens or invitation secrets block them all. Behind your own reverse proxy that sets X-Forwarded-For, set server.trustProxy: true (docs/deploy.md, section 3).`,
        { peer: peer() },
      );
      return true;
    }
    if (trustProxy && headers.length === 1 && headers[0] === 'Forwarded') {
      log.warn(
        `Requests arrive with a Forwarded header but no X-Forwarded-For: with server.trustProxy the hub reads only X-Forwarded-For, so every client behind the proxy shares the proxy's address. Make the proxy set X-Forwarded-For (docs/deploy.md, section 3).`,
        { peer: peer() },
      );
      return true;
    }
    return false;
  };
}
