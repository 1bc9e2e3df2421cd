/** Loopback ports for suites that start servers of their own, or need one that nothing answers on. */
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
