/**
 * A test hub served by the Node server on a free loopback port, for what only a real socket shows
 * (answers the server writes itself), with every log line kept and the requests that reach the
 * app counted.
 */
import { createLogger } from '../../kernel/log.ts';
import { nodeClientIp, serveNode } from '../../kernel/runtime/node.ts';
import { withTestHub, type StartTestHubOptions, type TestHub } from './hub.ts';

/**
 * Serves a hub for `run` (client address: the socket's, as `workspace-hub start` has it; logging
 * at debug, as JSON) and returns its log lines, parsed. `throughApp()`: requests the app has
 * answered so far.
 */
export async function servedHub(
  options: StartTestHubOptions,
  run: (port: number, t: TestHub, throughApp: () => number) => Promise<void>,
): Promise<Record<string, any>[]> {
  const lines: string[] = [];
  const log = createLogger({ level: 'debug', format: 'json', write: (l) => lines.push(l) });
  await withTestHub(
    {
      log,
      clientIp: nodeClientIp,
      ...options,
      config: { logging: { level: 'debug', format: 'json' }, ...options.config },
    },
    async (t) => {
      let fetched = 0;
      const fetch = t.hub.fetch;
      t.hub.fetch = (request, env) => (fetched++, fetch(request, env));
      const running = await serveNode(t.hub, { host: '127.0.0.1', port: 0 });
      try {
        await run(running.address.port, t, () => fetched);
      } finally {
        await running.stop();
      }
    },
  );
  return lines.map((line) => JSON.parse(line));
}
