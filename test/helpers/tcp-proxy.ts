/**
 * A TCP proxy on a free loopback port in front of `host:port`: each client gets its own upstream
 * connection, and a pair ends (both sockets destroyed) when either side errors or closes. What
 * flows between the two is the caller's policy: `pair` wires the sockets' `data` events.
 */
import net from 'node:net';

export interface TcpPair {
  client: net.Socket;
  upstream: net.Socket;
}

export interface TcpProxy<P extends TcpPair> {
  port: number;
  /** The pairs open now. */
  pairs: Set<P>;
  /** Destroys every open pair (new clients still connect). */
  destroyAll(): void;
  close(): Promise<void>;
}

export async function startTcpProxy<P extends TcpPair>(options: {
  host: string;
  port: number;
  /** Asked per new client: true drops it without connecting upstream (a server out of reach). */
  refuse?: () => boolean;
  /** The pair's record, with its sockets' `data` events wired. */
  pair: (client: net.Socket, upstream: net.Socket) => P;
}): Promise<TcpProxy<P>> {
  const pairs = new Set<P>();
  const server = net.createServer((client) => {
    if (options.refuse?.()) {
      client.destroy();
      return;
    }
    const upstream = net.connect(options.port, options.host);
    const pair = options.pair(client, upstream);
    pairs.add(pair);
    const close = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      socket.on('error', close);
      socket.on('close', close);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const destroyAll = () => {
    for (const pair of [...pairs]) {
      pair.client.destroy();
      pair.upstream.destroy();
    }
  };
  return {
    port: (server.address() as net.AddressInfo).port,
    pairs,
    destroyAll,
    async close() {
      destroyAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
