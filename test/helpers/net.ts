/** Loopback ports for suites that start servers of their own, or need one that nothing answers on. */
import { request } from 'node:http';
import net from 'node:net';

/** A port on 127.0.0.1 that was free a moment ago (the caller binds it next). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A port on 127.0.0.1 that nothing listens on: an ephemeral port bound, then released. */
export const closedPort: () => Promise<number> = freePort;

export interface ServerAnswer {
  status: number;
  /** The JSON body, or null for an empty one. */
  body: any;
  headers: Headers;
}

/**
 * One JSON request over a real socket to a hub served at a base URL (or a started server's `url`:
 * a `workspace-hub start` process), with a bearer secret; a body is sent as JSON.
 */
export async function callServer(
  server: string | { url: string },
  method: string,
  path: string,
  secret: string,
  body?: unknown,
): Promise<ServerAnswer> {
  const baseUrl = typeof server === 'string' ? server : server.url;
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${secret}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
}

/**
 * One request over a real socket with exactly these headers (Host included unless given), and the
 * answer as Node parsed it: for what a server writes on the wire, which `fetch` would normalize.
 */
export function rawRequest(
  port: number,
  options: { method?: string; path: string; headers?: Record<string, string | string[]> },
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'GET',
        path: options.path,
        headers: { host: `127.0.0.1:${port}`, ...options.headers },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}
