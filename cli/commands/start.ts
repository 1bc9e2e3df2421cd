/** `workspace-hub start`: serve the hub (on Node, or Deno.serve on Deno) until SIGTERM or SIGINT. */
import { resolve } from 'node:path';
import { defineCommand } from 'citty';
import type { UserRow } from '../../kernel/identity/tables.ts';
import type { Logger } from '../../kernel/log.ts';
import { HUB_VERSION } from '../../kernel/version.ts';
import { commonArgs, jsonArg, parsePort } from '../args.ts';
import { CliError } from '../errors.ts';
import { print, printJsonLine } from '../output.ts';

/**
 * The command the first start suggests, as it runs in a checkout (the `workspace-hub` binary is
 * not on PATH there; `npx` finds it in node_modules/.bin). The README quick start runs it as printed.
 */
export const CREATE_USER_HINT =
  "npx workspace-hub user create --name alice --role user --collection-access '*'";

/** The block shown once in the life of a database, when the first admin account is created. */
function firstAdminLines(userId: string, secret: string): string[] {
  return [
    '',
    'First start: created the admin account "admin" (' + userId + ').',
    'Its API token is below. Store it now, it will not be shown again:',
    '',
    `  ${secret}`,
    '',
    'Create more users with, for example (in another terminal, in this directory):',
    `  ${CREATE_USER_HINT}`,
    '',
  ];
}

/**
 * A failure to bind the listening socket, said for an operator: which address, why, and how to
 * pick another. Node says `EADDRINUSE`/`EACCES` in `code`, Deno in the error's name. Anything
 * else is returned as it is.
 */
export function listenFailure(
  error: unknown,
  host: string,
  port: number,
  configPath: string | null,
): unknown {
  if (!(error instanceof Error)) return error;
  const code = (error as { code?: unknown }).code;
  const address = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const choose =
    `Pick another port with --port <port> or server.port in ${configPath ?? 'server.yaml'}` +
    ' (--port 0 picks a free one).';
  if (code === 'EADDRINUSE' || error.name === 'AddrInUse')
    return new CliError(
      `Cannot listen on ${address}: another process already holds port ${port} ` +
        `(another hub still running?). ${choose}`,
    );
  // Node: getaddrinfo ENOTFOUND; Deno: "failed to lookup address information".
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || /lookup address/.test(error.message))
    return new CliError(
      `Cannot listen on ${address}: "${host}" is neither an IP address nor a name that resolves. ` +
        'Give --host (or server.host) an address of this machine: 127.0.0.1 for this machine only, ' +
        '0.0.0.0 for every IPv4 interface, :: for every interface.',
    );
  if (code === 'EADDRNOTAVAIL' || error.name === 'AddrNotAvailable')
    return new CliError(
      `Cannot listen on ${address}: ${host} is not an address of this machine. ` +
        'Give --host (or server.host) one of its addresses: 127.0.0.1 for this machine only, ' +
        '0.0.0.0 for every IPv4 interface, :: for every interface.',
    );
  if (code === 'EACCES' || error.name === 'PermissionDenied')
    return new CliError(
      `Cannot listen on ${address}: this user may not open port ${port}` +
        `${port < 1024 ? ' (ports below 1024 need privileges)' : ''}. ${choose}`,
    );
  return error;
}

/** The kernel, the runtime adapter of this process and the plugins, loaded when the command runs. */
async function startModules() {
  const [clock, hub, provision, deno, context, plugins, pidFile] = await Promise.all([
    import('../../kernel/clock.ts'),
    import('../../kernel/hub.ts'),
    import('../../kernel/identity/provision.ts'),
    import('../../kernel/runtime/deno.ts'),
    import('../context.ts'),
    import('../../plugins/index.ts'),
    import('../pid-file.ts'),
  ]);
  const node = deno.onDeno ? null : await import('../../kernel/runtime/node.ts');
  return {
    ...clock,
    ...hub,
    ...provision,
    ...deno,
    ...context,
    ...pidFile,
    node,
    plugins: plugins.plugins,
  };
}

type StartModules = Awaited<ReturnType<typeof startModules>>;

/** Tells the operator about the admin account this start created, if it created one. */
function announceFirstAdmin(
  first: { user: UserRow; secret: string; chosen: boolean } | null,
  json: boolean | undefined,
  tokenFile: string | undefined,
): void {
  // A token from the operator's file is never printed: they have it already.
  if (first?.chosen) {
    const { id, name } = first.user;
    if (json) printJsonLine({ firstAdmin: { userId: id, name, tokenFile } });
    else
      print(
        `First start: created the admin account "admin" (${id}) with the token in ${tokenFile}.`,
      );
  } else if (first) {
    if (json)
      printJsonLine({
        firstAdmin: { userId: first.user.id, name: first.user.name, secret: first.secret },
      });
    else print(...firstAdminLines(first.user.id, first.secret));
  }
}

/**
 * Writes the PID file "workspace-hub reload" finds this server by; its removal, or nothing to
 * remove when it could not be written (the log says so).
 */
function writeOwnPidFile(
  m: StartModules,
  log: Logger,
  dataDir: string,
  pid: number,
  url: string,
): () => void {
  try {
    const found = m.readPidFile(dataDir);
    const previous = found && found.pid !== pid && m.isHubRunning(found.pid) ? found : null;
    if (previous) {
      log.warn(
        `Another hub (pid ${previous.pid}) wrote ${dataDir}/${m.PID_FILE}; "workspace-hub reload" will reach this one (pid ${pid}) until it stops.`,
      );
    }
    const info = { pid, url, startedAt: new Date().toISOString() };
    return m.writePidFile(dataDir, info, previous);
  } catch (error) {
    log.warn(
      `Cannot write the PID file in ${dataDir}; "workspace-hub reload" will not find this server (use kill -HUP ${pid}).`,
      { error: (error as Error).message },
    );
  }
  return () => {};
}

/** The `start` command. */
export const startCommand = defineCommand({
  meta: {
    name: 'workspace-hub start',
    description:
      'Start the hub server (prints its PID; "workspace-hub reload" re-reads the config)',
  },
  args: {
    migrate: {
      type: 'boolean',
      description:
        'Apply pending migrations before serving (always done on the embedded SQLite database)',
    },
    host: { type: 'string', description: 'Interface to bind, instead of server.host' },
    port: {
      type: 'string',
      valueHint: 'port',
      description: 'Port to listen on, instead of server.port (0 picks a free one)',
    },
    ...jsonArg,
    ...commonArgs,
  },
  async run({ args }) {
    const port = args.port === undefined ? undefined : parsePort(args.port);
    const m = await startModules();
    // The server acts on every section: a variable missing anywhere stops it.
    const { config, path } = await m.loadCliConfig(args, []);
    const clientIp = m.onDeno ? m.denoClientIp : m.node!.nodeClientIp;
    const hub = await m.createHub({
      config,
      configPath: path,
      // Started on built-in defaults: a reload reads ./server.yaml once the operator creates it.
      defaultConfigPath: path === null ? resolve(process.cwd(), 'server.yaml') : null,
      plugins: m.plugins,
      clientIp,
      ...(args.migrate === undefined ? {} : { migrate: args.migrate }),
    });
    let served;
    try {
      const tokenFile = process.env[m.ADMIN_TOKEN_FILE_ENV] || undefined;
      const first = await m.ensureFirstAdmin(hub.driver(), hub.identity, m.systemClock, tokenFile);
      announceFirstAdmin(first, args.json, tokenFile);
      served = await (m.onDeno ? m.serveDeno : m.node!.serveNode)(hub, {
        ...(args.host ? { host: args.host } : {}),
        ...(port === undefined ? {} : { port }),
      });
    } catch (error) {
      await hub.close();
      throw listenFailure(error, args.host || config.server.host, port ?? config.server.port, path);
    }
    const pid = process.pid;
    const dataDir = m.dataDirectory(config.db);
    const removePidFile = writeOwnPidFile(m, hub.log, dataDir, pid, served.url);
    const running = {
      ...served,
      async stop() {
        try {
          await served.stop();
        } finally {
          removePidFile();
        }
      },
      // SIGHUP: the outcome goes to the log and, for "workspace-hub reload", beside the PID file.
      async reload() {
        const outcome = await served.reload();
        try {
          m.writeReloadRecord(dataDir, { pid, at: Date.now(), outcome });
        } catch (error) {
          hub.log.warn('Cannot write the reload outcome for "workspace-hub reload"', {
            error: (error as Error).message,
          });
        }
        return outcome;
      },
    };
    (m.onDeno ? m.handleDenoSignals : m.node!.handleSignals)(running, hub.log);
    if (args.json)
      printJsonLine({
        listening: {
          url: running.url,
          pid,
          version: HUB_VERSION,
          database: hub.driver().kind,
          docs: `${running.url}/docs`,
          ...(config.sso ? { login: `${running.url}/login` } : {}),
        },
      });
    else
      print(
        `workspace-hub ${HUB_VERSION} listening on ${running.url} (database: ${hub.driver().kind}), pid ${pid}`,
        `API reference: ${running.url}/docs`,
        ...(config.sso ? [`Single sign-on: ${running.url}/login`] : []),
      );
  },
});
