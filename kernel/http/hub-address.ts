/**
 * The address clients dial: what the front page shows, join links and single sign-on redirects
 * point at. `server.publicUrl` when the operator set one (the hub does not terminate TLS, so only
 * they know the public https address), else the configured host and port.
 */

/** Bind addresses that mean "every interface": a client needs one it can dial. */
const WILDCARDS = new Set(['', '0.0.0.0', '::', '[::]', '*', '::0']);

/** `http://<host>:<port>` of the configured server; wildcard binds become 127.0.0.1. */
export function serverBaseUrl(server: { host: string; port: number }): string {
  const host = WILDCARDS.has(server.host.trim()) ? '127.0.0.1' : server.host.trim();
  // IPv6 literals need brackets inside a URL.
  const shown = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `http://${shown}:${server.port}`;
}

/** `server.publicUrl` when set, else {@link serverBaseUrl}. */
export function publicBaseUrl(server: {
  host: string;
  port: number;
  publicUrl?: string | undefined;
}): string {
  return server.publicUrl ?? serverBaseUrl(server);
}
