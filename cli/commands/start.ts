/** `workspace-hub start`: serve the hub (on Node, or Deno.serve on Deno) until SIGTERM or SIGINT. */
import { defineCommand } from 'citty';
import { systemClock } from '../../kernel/clock.ts';
import { createHub } from '../../kernel/hub.ts';
import { ensureFirstAdmin } from '../../kernel/identity/provision.ts';
import { denoClientIp, handleDenoSignals, onDeno, serveDeno } from '../../kernel/runtime/deno.ts';
import { handleSignals, nodeClientIp, serveNode } from '../../kernel/runtime/node.ts';
import { HUB_VERSION } from '../../kernel/version.ts';
import { plugins } from '../../plugins/index.ts';
import { commonArgs, parsePort } from '../args.ts';
import { loadCliConfig } from '../context.ts';
import { print } from '../output.ts';

/** The block shown once in the life of a database, when the first admin account is created. */
function firstAdminLines(userId: string, secret: string): string[] {
  return [
    '',
    'First start: created the admin account "admin" (' + userId + ').',
    'Its API token is below. Store it now, it will not be shown again:',
    '',
    `  ${secret}`,
    '',
    'Create more users with, for example:',
    "  workspace-hub user create --name alice --role user --collection-access '*'",
    '',
  ];
}

/** The `start` command. */
export const startCommand = defineCommand({
  meta: { name: 'workspace-hub start', description: 'Start the hub server' },
  args: {
    migrate: {
      type: 'boolean',
      description: 'Apply pending migrations before serving (always done on the embedded SQLite database)',
    },
    host: { type: 'string', description: 'Interface to bind, instead of server.host' },
    port: { type: 'string', valueHint: 'port', description: 'Port to listen on, instead of server.port (0 picks a free one)' },
    ...commonArgs,
  },
  async run({ args }) {
    const port = args.port === undefined ? undefined : parsePort(args.port);
    const { config, path } = await loadCliConfig(args);
    const hub = await createHub({ config, configPath: path, plugins, clientIp: onDeno ? denoClientIp : nodeClientIp, ...(args.migrate === undefined ? {} : { migrate: args.migrate }) });
    let running;
    try {
      const first = await ensureFirstAdmin(hub.driver(), hub.identity, systemClock);
      if (first) print(...firstAdminLines(first.user.id, first.secret));
      running = await (onDeno ? serveDeno : serveNode)(hub, { ...(args.host ? { host: args.host } : {}), ...(port === undefined ? {} : { port }) });
    } catch (error) {
      await hub.close();
      throw error;
    }
    (onDeno ? handleDenoSignals : handleSignals)(running, hub.log);
    print(`workspace-hub ${HUB_VERSION} listening on ${running.url} (database: ${hub.driver().kind})`);
  },
});
