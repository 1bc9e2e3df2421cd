/**
 * A TCP proxy in front of PostgreSQL that can freeze the hub's LISTEN connection silently: its
 * bytes stop flowing in both directions while both sockets stay open, as on a half-open connection
 * (a firewall that forgot it, a host that vanished). Other connections pass untouched. The
 * listener is known by the application name in its startup message.
 */
import { startTcpProxy } from './tcp-proxy.ts';

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
  const frozen = new Set<object>();
  let held = 0;
  const proxy = await startTcpProxy({
    host,
    port,
    pair(client, upstream) {
      const pair = { client, upstream, listener: false };
      client.on('data', (chunk: Buffer) => {
        if (chunk.includes(LISTENER_NAME)) pair.listener = true;
        if (!frozen.has(pair)) upstream.write(chunk);
        else held += chunk.length;
      });
      upstream.on('data', (chunk: Buffer) => {
        if (!frozen.has(pair)) client.write(chunk);
      });
      return pair;
    },
  });
  return {
    port: proxy.port,
    freezeListeners() {
      let count = 0;
      for (const pair of proxy.pairs)
        if (pair.listener && !frozen.has(pair)) {
          frozen.add(pair);
          count++;
        }
      return count;
    },
    frozenOpen: () => [...proxy.pairs].filter((pair) => frozen.has(pair)).length,
    frozenBytes: () => held,
    close: () => proxy.close(),
  };
}
