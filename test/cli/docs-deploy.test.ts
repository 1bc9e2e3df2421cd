/**
 * Every command docs/deploy.md shows, run as printed through `sh` on this machine, with the
 * service's directory, environment file and the command wrapper the page installs. The commands
 * are read from the Markdown: one the test neither runs nor names below fails it.
 *
 * What stands in for the server, and why: the page's system paths are a temporary directory's
 * (`/srv/workspace-hub` the service's directory, `/etc/workspace-hub/env` its environment file,
 * `/usr/local/bin` a directory first on PATH, the package's `cli/bin.mjs` this checkout's, the node
 * of `/usr/bin/node` this one) and its service user is the user running the test, since only root
 * may switch users (`runuser`): the suite needs root (under CI=true it fails without it). `sudo`
 * is what it is for root: it runs the command. The hub is started as systemd would, with the
 * environment file's variables; its server.yaml takes `db.path` and the single sign-on secret from
 * them, so a command that did not read the file fails. A placeholder (`<token-id>`, `<name>`,
 * `<file>`) gets the value the steps before produced.
 */
import { readFile, stat, writeFile, mkdir } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { createProject, startServer, type Project, type RunningServer } from '../helpers/cli.ts';
import { BIN, lineAfter, readDoc, runShell, shownCommands } from '../helpers/docs.ts';
import { freePort } from '../helpers/net.ts';

const root = process.getuid?.() === 0;
if (process.env.CI === 'true' && !root)
  throw new Error('CI=true but not root: the docs/deploy.md suite switches users with runuser.');

/** Commands the test does not run: they change the machine itself. */
const NOT_RUN: [RegExp, string][] = [
  [/^sudo (useradd|install) /, 'creates the service user or installs the release on the machine'],
  [/^sudo -u workspace-hub sh -c '.*npm install/, 'installs the release as the service user'],
  [/^npm (install|pack|start)\b|^npm install && npm pack$/, 'builds or installs this checkout'],
  [/^(sudo )?(systemctl|journalctl) /, 'systemd'],
  [
    /^workspace-hub (sso |user delete alice$)/,
    'the single sign-on blocks, run as printed against a hub with it: test/sso/cli.test.ts',
  ],
  [/^workspace-hub user delete$/, 'named: deleting needs the user, as `user delete --help` says'],
];

/** One stand-in for the server: its directory, environment file and PATH directory. */
interface Machine {
  dir: string;
  envFile: string;
  bin: string;
}

describe.runIf(root)('every command of docs/deploy.md, as printed', () => {
  const ran = new Set<string>();
  let project: Project;
  let elsewhere: Project;
  let server: RunningServer;
  let machine: Machine;
  let fresh: Machine;
  const date = new Date().toISOString().slice(0, 10);
  const secret = 'y'.repeat(32);

  /** The page's system paths and user on `target`, in a command or the wrapper it installs. */
  const onMachine = (command: string, target: Machine) =>
    command
      .replaceAll('/usr/local/bin/', `${target.bin}/`)
      .replaceAll('/etc/workspace-hub/env', target.envFile)
      .replaceAll('/srv/workspace-hub/node_modules/workspace-hub/cli/bin.mjs', BIN)
      .replaceAll('/srv/workspace-hub', target.dir)
      .replaceAll('/usr/bin/node', process.execPath)
      .replaceAll('runuser -u workspace-hub', `runuser -u ${userInfo().username}`);

  /** Runs a command of the page on `target` with placeholders filled; records that it ran. */
  const run = async (command: string, target = machine, values: Record<string, string> = {}) => {
    let line = onMachine(command, target);
    for (const [placeholder, value] of Object.entries(values))
      line = line.replaceAll(placeholder, value);
    const result = await runShell(line, { cwd: target.dir, path: [target.bin] });
    expect(result.code, `${line}\n${result.stderr}`).toBe(0);
    ran.add(command);
    return result;
  };

  /** A server directory with server.yaml, an environment file and a PATH directory with `sudo`. */
  const prepare = async (target: Project, port: number): Promise<Machine> => {
    const config = {
      server: { port },
      db: { driver: 'sqlite', path: '${HUB_DB_PATH}' },
      sso: {
        oidc: {
          issuer: 'https://idp.example.com/realms/corp',
          clientId: 'workspace-hub',
          clientSecret: '${HUB_OIDC_SECRET}',
        },
      },
    };
    await writeFile(join(target.dir, 'server.yaml'), stringify(config));
    const envFile = join(target.dir, 'env');
    await writeFile(envFile, `HUB_DB_PATH=./data/hub.db\nHUB_OIDC_SECRET=${secret}\n`, {
      mode: 0o600,
    });
    const bin = join(target.dir, 'bin');
    await mkdir(bin);
    await writeFile(join(bin, 'sudo'), '#!/bin/sh\nexec "$@"\n', { mode: 0o755 });
    return { dir: target.dir, envFile, bin };
  };

  /** The page's "Commands on the server" block: installs the wrapper on `target`. */
  const installWrapper = async (target: Machine) => {
    const shown = shownCommands(await readDoc('docs/deploy.md'));
    const install = shown.filter((c) => c.includes('/usr/local/bin/workspace-hub'));
    expect(install).toHaveLength(2);
    for (const command of install) await run(command, target);
  };

  beforeAll(async () => {
    project = await createProject();
    elsewhere = await createProject();
    machine = await prepare(project, await freePort());
    fresh = await prepare(elsewhere, await freePort());
    // As systemd starts the unit: EnvironmentFile's variables, WorkingDirectory.
    server = await startServer(project.dir, [], {
      env: { HUB_DB_PATH: './data/hub.db', HUB_OIDC_SECRET: secret },
    });
  });
  afterAll(async () => {
    await server?.stop();
    await project?.remove();
    await elsewhere?.remove();
  });

  it('needs the environment file: a command in a plain shell cannot read server.yaml', async () => {
    const plain = await project.run('user', 'list');
    expect(plain.code).toBe(3);
    expect(plain.stderr).toContain(
      'Missing environment variable HUB_DB_PATH for config key db.path',
    );
  });

  it('installs the wrapper, which runs commands with the service environment, directory and user', async () => {
    await installWrapper(machine);
    expect((await stat(join(machine.bin, 'workspace-hub'))).mode & 0o777).toBe(0o755);
    const listed = await run('sudo workspace-hub user list');
    expect(listed.stdout).toMatch(/^\S+\s+admin\s+admin\s/m);
    expect(listed.stderr).toBe('');
  });

  it('rotates the first admin token', async () => {
    const first = /hbk_[A-Za-z0-9_-]+/.exec(server.stdout())![0];
    const created = await run('sudo workspace-hub user token create --user admin --name rotated');
    const rotated = lineAfter(created.stdout, 'Store this token now')!;
    const listed = await run('sudo workspace-hub user token list --user admin');
    const id = /^(\S+)\s+admin\s+admin\s/m.exec(listed.stdout)![1]!;
    await run('sudo workspace-hub user token revoke <token-id>', machine, { '<token-id>': id });
    const session = (token: string) =>
      fetch(`${server.url}/auth/session`, { headers: { authorization: `Bearer ${token}` } });
    expect((await session(first)).status).toBe(401);
    expect((await session(rotated)).status).toBe(200);
  });

  it('reloads, invites with the public address, and changes and lists users', async () => {
    expect((await run('sudo workspace-hub reload')).stdout).toContain(`(pid ${server.child.pid})`);
    const invited = await run(
      "sudo workspace-hub user invite create --name ada --collection-access '*' --base-url https://hub.example.com",
    );
    expect(invited.stdout).toMatch(/^https:\/\/hub\.example\.com\/join\?/m);
    await run('workspace-hub user update <name> --role admin', machine, { '<name>': 'ada' });
    expect((await run('workspace-hub user list')).stdout).toMatch(/^\S+\s+ada\s+admin\s/m);
    const help = await runShell('workspace-hub user delete --help', {
      cwd: machine.dir,
      path: [machine.bin],
    });
    expect(help.stdout).toContain('USAGE workspace-hub user delete [OPTIONS] <USER-ID>');
  });

  it('backs up and exports, migrates, and moves the export to a new installation', async () => {
    await run('sudo workspace-hub backup --out hub-$(date +%F).db');
    expect((await stat(join(machine.dir, `hub-${date}.db`))).mode & 0o777).toBe(0o600);
    await run('sudo workspace-hub export --out hub-$(date +%F).json');
    expect((await run('sudo workspace-hub migrate')).stdout).toBe('Database is up to date.\n');

    // The restore column: a new database (another installation), migrate, import.
    await installWrapper(fresh);
    await run('sudo workspace-hub migrate', fresh);
    const file = join(machine.dir, `hub-${date}.json`);
    await run('sudo workspace-hub import <file>', fresh, { '<file>': file });
    const moved = await run('sudo workspace-hub user list', fresh);
    expect(moved.stdout).toMatch(/^\S+\s+ada\s+admin\s/m);
  });

  it('runs or names every command the page shows', async () => {
    const shown = shownCommands(await readDoc('docs/deploy.md'));
    const left = shown.filter((command) => !ran.has(command));
    for (const command of left)
      expect(
        NOT_RUN.find(([pattern]) => pattern.test(command)),
        `${command}: run it in this test, or say why not`,
      ).toBeDefined();
    expect(JSON.parse(await readFile(join(process.cwd(), 'package.json'), 'utf8')).files).toContain(
      'dist',
    );
  });
});
