/**
 * A TCP proxy in front of PostgreSQL that can freeze the hub's LISTEN connection silently: its
 * bytes stop flowing in both directions while both sockets stay open, as on a half-open connection
 * (a firewall that forgot it, a host that vanished). Other connections pass untouched. The
 * listener is known by the application name in its startup message.
 */
import net from 'node:net';

const LISTENER_NAME = Buffer.from('workspace-hub changes');

export interface ListenerProxy {
  port: number;
  /** Freezes every LISTEN connection open now; returns how many. Later ones pass. */
  freezeListeners(): number;
  /** Frozen connections that neither side has closed yet. */
  frozenOpen(): number;
  /** Bytes the hub wrote on frozen connections, which never reached PostgreSQL. */
  frozenBytes(): number;
  close(): Promise<void>;
}

export async function startListenerProxy(host: string, port: number): Promise<ListenerProxy> {
  const pairs = new Set<{ client: net.Socket; upstream: net.Socket; listener: boolean }>();
  const frozen = new Set<object>();
  let held = 0;
  const server = net.createServer((client) => {
    const upstream = net.connect(port, host);
    const pair = { client, upstream, listener: false };
    pairs.add(pair);
    client.on('data', (chunk: Buffer) => {
      if (chunk.includes(LISTENER_NAME)) pair.listener = true;
      if (!frozen.has(pair)) upstream.write(chunk);
      else held += chunk.length;
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!frozen.has(pair)) client.write(chunk);
    });
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
  return {
    port: (server.address() as net.AddressInfo).port,
    freezeListeners() {
      let count = 0;
      for (const pair of pairs)
        if (pair.listener && !frozen.has(pair)) {
          frozen.add(pair);
          count++;
        }
      return count;
    },
    frozenOpen: () => [...pairs].filter((pair) => frozen.has(pair)).length,
    frozenBytes: () => held,
    async close() {
      for (const pair of pairs) {
        pair.client.destroy();
        pair.upstream.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
