/**
 * Every command README.md shows, run as printed (through `sh`, as a terminal would) on a fresh
 * directory that stands for the checkout after `npm install` (the package's command in
 * node_modules/.bin, so `npx workspace-hub` finds it; on PATH too, for the bare `workspace-hub`
 * of the command-line section), with the server the README's own commands start. The commands are
 * read from the Markdown: one the test neither runs nor names below fails it.
 *
 * What stands in for the reader, and why: a free port in server.yaml and in the commands' URLs
 * (instead of 8788, which another hub may hold); HOME in the directory (the examples write to
 * `~`); a placeholder (`hbk_…`, `<pid>`, `<token-id>`, `<file>`) gets the value the steps before
 * produced; `/etc/hub/server.yaml`, an example path, is this directory's server.yaml; `new.yaml`,
 * "pointed at the new, empty database", is written here.
 */
import { readFile, stat, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { createProject, type Project } from '../helpers/cli.ts';
import {
  lineAfter,
  linkCommand,
  readDoc,
  runShell,
  shownCommands,
  startShell,
  synopsis,
  type ShellServer,
} from '../helpers/docs.ts';
import { freePort } from '../helpers/net.ts';

const PACKAGE = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8'));
const DENO_TASKS = JSON.parse(await readFile(new URL('../../deno.json', import.meta.url), 'utf8'))
  .tasks as Record<string, string>;

/**
 * Commands the test does not run, each with why. npm's install and the scripts build this
 * checkout or run the suites (CI runs them); that each script exists is checked, and
 * test/cli/quickstart.test.ts runs the command `npm start` runs.
 */
const NOT_RUN: [RegExp, string][] = [
  [/^npm (install|start|test|run )|^npm install && npm start$/, 'npm'],
  [/^npm install && npx deno task start$/, 'deno task'],
  [/^systemctl stop$/, 'named: systemd stops the service with SIGTERM, as the stop test sends'],
  [/^kill -9$/, 'named: test/cli/sqlite.test.ts kills a hub with SIGKILL'],
];

describe('every command of README.md, as printed', () => {
  const ran = new Set<string>();
  let project: Project;
  let port: number;
  let bin: string;
  let server: ShellServer;
  let admin: string;

  /** Runs a README command with the placeholders filled, and records that it ran. */
  const run = async (command: string, values: Record<string, string> = {}) => {
    let line = command.replaceAll('8788', String(port));
    for (const [placeholder, value] of Object.entries(values))
      line = line.replaceAll(placeholder, value);
    const result = await runShell(line, {
      cwd: project.dir,
      env: { HOME: join(project.dir, 'home') },
      path: [bin],
    });
    expect(result.code, `${line}\n${result.stderr}`).toBe(0);
    ran.add(command);
    return result;
  };
  const session = (secret: string) =>
    fetch(`${server.url}/auth/session`, { headers: { authorization: `Bearer ${secret}` } });

  beforeAll(async () => {
    port = await freePort();
    project = await createProject({ server: { port } });
    bin = await linkCommand(project.dir);
    await mkdir(join(project.dir, 'home'));
  });
  afterAll(async () => {
    await server?.stop();
    await project?.remove();
  });

  it('starts the hub with an admin token chosen in a file, and the curl of the quick start sees it', async () => {
    const [choose, start] = shownCommands(await readDoc('README.md')).filter((c) =>
      /admin-token/.test(c),
    );
    await run(choose!);
    expect((await stat(join(project.dir, 'admin-token'))).mode & 0o777).toBe(0o600);
    admin = (await readFile(join(project.dir, 'admin-token'), 'utf8')).trim();
    server = await startShell(start!, { cwd: project.dir, path: [bin] });
    ran.add(start!);
    expect(server.stdout()).toContain('with the token in');
    const curl = shownCommands(await readDoc('README.md')).find((c) => c.startsWith('curl '))!;
    const answer = await run(curl, { 'hbk_…': admin });
    expect(JSON.parse(answer.stdout).user).toMatchObject({ name: 'admin', role: 'admin' });
  });

  it('runs the quick start, reload and SIGHUP against it', async () => {
    await run("npx workspace-hub user create --name alice --role user --collection-access '*'");
    expect((await run('npx workspace-hub user show alice')).stdout).toContain('alice (');
    const invited = await run(
      "npx workspace-hub user invite create --name bob --collection-access '*'",
    );
    expect(invited.stdout).toContain(`${server.url}/join?`);
    for (const reload of ['npx workspace-hub reload', 'workspace-hub reload'])
      expect((await run(reload)).stdout).toContain(`(pid ${server.pid})`);
    const before = server.stderr().match(/Config reloaded/g)?.length ?? 0;
    await run('kill -HUP <pid>', { '<pid>': String(server.pid) });
    await expect
      .poll(() => server.stderr().match(/Config reloaded/g)?.length ?? 0)
      .toBe(before + 1);
  });

  it("purges a saved request's history as the history section shows", async () => {
    const headers = { authorization: `Bearer ${admin}`, 'content-type': 'application/json' };
    const post = (path: string, body: object) =>
      fetch(`${server.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) }).then(
        (res) => res.json() as Promise<{ id: string }>,
      );
    const collection = await post('/collections', { name: 'purged' });
    const request = await post(`/collections/${collection.id}/requests`, { name: 'leaky' });
    const revisions = () =>
      fetch(`${server.url}/requests/${request.id}/revisions`, { headers }).then(
        (res) => res.json() as Promise<{ revisions: unknown[] }>,
      );
    expect((await revisions()).revisions).toHaveLength(1);
    await run('npx workspace-hub history purge request <id>', { '<id>': request.id });
    expect((await revisions()).revisions).toHaveLength(0);
  });

  it('recovers a lost admin token: a new one works, the lost one stops', async () => {
    const created = await run('npx workspace-hub user token create --user admin --name recovery');
    const recovery = lineAfter(created.stdout, 'Store this token now')!;
    const listed = await run('npx workspace-hub user token list --user admin');
    // The file's token was the first, named after the account.
    const lost = /^(\S+)\s+admin\s+admin\s/m.exec(listed.stdout)![1]!;
    await run('npx workspace-hub user token revoke <token-id>', { '<token-id>': lost });
    expect((await session(admin)).status).toBe(401);
    expect((await session(recovery)).status).toBe(200);
  });

  it('backs up, exports, migrates a new database and imports into it, outside the checkout', async () => {
    const home = join(project.dir, 'home');
    await run('npx workspace-hub backup --out ~/hub-2026-01-31.db');
    await run('npx workspace-hub backup --out <file>', { '<file>': '~/second.db' });
    for (const file of ['hub-2026-01-31.db', 'second.db'])
      expect((await stat(join(home, file))).mode & 0o777).toBe(0o600);
    await run('npx workspace-hub export --out ~/hub.json');
    await writeFile(
      join(project.dir, 'new.yaml'),
      stringify({ db: { driver: 'sqlite', path: './new/hub.db' } }),
    );
    await run('npx workspace-hub migrate --config new.yaml');
    await run('npx workspace-hub import ~/hub.json --config new.yaml');
    const moved = await project.json('user', 'list', '--config', 'new.yaml');
    expect(moved.users.map((user: { name: string }) => user.name)).toContain('alice');
  });

  it('runs the command-line section: migrate, --config before or after the command words', async () => {
    for (const migrate of ['workspace-hub migrate', 'npx workspace-hub migrate'])
      expect((await run(migrate)).stdout).toBe('Database is up to date.\n');
    const config = join(project.dir, 'server.yaml');
    for (const list of [
      'workspace-hub --config /etc/hub/server.yaml user list',
      'workspace-hub user list --config /etc/hub/server.yaml',
    ])
      expect((await run(list, { '/etc/hub/server.yaml': config })).stdout).toMatch(/\balice\b/);
  });

  it('names in its synopsis only commands that exist, each with options its help lists', async () => {
    const commands = synopsis(await readDoc('README.md'));
    expect(commands.length).toBeGreaterThan(15);
    for (const { path, options } of commands) {
      const help = await project.run(...path, '--help');
      expect([path.join(' '), help.code]).toEqual([path.join(' '), 0]);
      expect(help.stdout, path.join(' ')).toMatch(
        new RegExp(`^USAGE workspace-hub ${path.join(' ')}\\b`, 'm'),
      );
      for (const option of options)
        expect(help.stdout, `${path.join(' ')} ${option}`).toContain(option);
    }
  });

  it('stops the hub cleanly', async () => {
    expect(await server.stop()).toBe(0);
    expect(server.stderr()).toMatch(/INFO {2}Stopped\.\n$/);
  });

  it('runs or names every command the README shows; npm and deno run scripts that exist', async () => {
    const shown = shownCommands(await readDoc('README.md'));
    const left = shown.filter((command) => !ran.has(command));
    for (const command of left) {
      const reason = NOT_RUN.find(([pattern]) => pattern.test(command));
      expect(reason, `${command}: run it in this test, or say why not`).toBeDefined();
      for (const script of command.matchAll(/npm (?:run )?([\w:]+)/g))
        if (!['install', 'pack'].includes(script[1]!))
          expect(PACKAGE.scripts, command).toHaveProperty([script[1]!]);
      if (/deno task (\w+)/.test(command))
        expect(DENO_TASKS).toHaveProperty([/deno task (\w+)/.exec(command)![1]!]);
    }
    expect(PACKAGE.scripts.start).toBe('node cli/bin.mjs start');
  });
});
