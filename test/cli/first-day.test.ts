/**
 * What an operator meets on the first day, through real processes on the embedded database: one
 * exit code for every usage mistake, ranges said as they are checked, a bad --host explained,
 * every list a table with names, a warning for an account that can use nothing (with a command
 * that grants access, run as printed), `audit list` saying when more events exist and how to page,
 * help that fits a terminal, and a start and stop without noise (Redis said at info, migrations
 * summed up, a final "Stopped." line).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rootCommand } from '../../cli/main.ts';
import { HELP_WIDTH } from '../../cli/usage.ts';
import {
  createProject,
  quietLogging,
  startServer,
  withProject,
  type Project,
} from '../helpers/cli.ts';
import { createTestDatabase, driverAvailable } from '../helpers/databases.ts';

let project: Project;
beforeAll(async () => {
  project = await createProject(quietLogging);
  const migrated = await project.run('migrate');
  expect(migrated.code, migrated.stderr).toBe(0);
});
afterAll(() => project?.remove());

/** Every command path of the CLI, from the command tree itself. */
async function commandPaths(): Promise<string[][]> {
  const paths: string[][] = [[]];
  const walk = async (command: any, path: string[]) => {
    const subs = command.subCommands ? await command.subCommands : undefined;
    for (const [word, load] of Object.entries(subs ?? {})) {
      const sub = typeof load === 'function' ? await (load as () => Promise<unknown>)() : load;
      paths.push([...path, word]);
      await walk(sub, [...path, word]);
    }
  };
  await walk(rootCommand, []);
  return paths;
}

describe('usage mistakes', () => {
  it.each([
    ['user create --name', '--name'],
    ['user create --name --role user', '--name'],
    ['user create --name alice --role', '--role'],
    ['user create --name alice --collection-access', '--collection-access'],
    ['user token create --user admin --name', '--name'],
    ['user invite create --name bob --expires-in-hours', '--expires-in-hours'],
    ['audit list --limit', '--limit'],
    ['tenant create acme --name', '--name'],
    ['backup --out', '--out'],
    ['export --out', '--out'],
  ])('"%s" exits 2 saying %s needs a value, touching nothing', async (line, flag) => {
    const { code, stdout, stderr } = await project.run(...line.split(' '));
    expect([code, stdout]).toEqual([2, '']);
    expect(stderr).toMatch(new RegExp(`^Option ${flag} needs a value\\. Run "workspace-hub `));
  });

  it.each([
    ['user create', '--name'],
    ['user token create --user admin', '--name'],
    ['tenant create acme', '--name'],
  ])('"%s %s \'\'" (a required value left empty) exits 2 too', async (line, flag) => {
    const { code, stderr } = await project.run(...line.split(' '), flag, '');
    expect(code).toBe(2);
    expect(stderr).toMatch(new RegExp(`^Option ${flag} needs a value, not an empty one\\.`));
  });

  it('states the range of --expires-in-hours as it checks it, in the refusal and in the help', async () => {
    for (const value of ['0', '8761', '-1', 'soon']) {
      const { code, stderr } = await project.run(
        ...['user', 'invite', 'create', '--name', 'bob', '--expires-in-hours', value],
      );
      expect([value, code, stderr]).toEqual([
        value,
        2,
        `--expires-in-hours must be a whole number from 1 to 8760, got "${value}".\n`,
      ]);
    }
    const help = await project.run('user', 'invite', 'create', '--help');
    expect(help.stdout).toContain('Lifetime of the invitation in whole hours, 1 up to a year');
    expect(help.stdout).not.toContain('0 or more');
    const one = await project.run(
      ...['user', 'invite', 'create', '--name', 'hourly', '--expires-in-hours', '1'],
    );
    expect(one.code, one.stderr).toBe(0);
  });
});

describe('start --host that is not an address of this machine', () => {
  const choose =
    '127.0.0.1 for this machine only, 0.0.0.0 for every IPv4 interface, :: for every interface.';
  it.each([
    [
      '256.1.1.1',
      `"256.1.1.1" is neither an IP address nor a name that resolves. Give --host (or server.host) an address of this machine: ${choose}`,
    ],
    [
      '192.0.2.1',
      `192.0.2.1 is not an address of this machine. Give --host (or server.host) one of its addresses: ${choose}`,
    ],
  ])('%s: says what is wrong and what to give instead, exit 1', async (host, reason) => {
    const { code, stderr } = await project.run('start', '--host', host, '--port', '0');
    expect([code, stderr]).toEqual([1, `Cannot listen on ${host}:0: ${reason}\n`]);
  });
});

describe('lists', () => {
  it('user token list is a table naming each owner', async () => {
    const { user } = await project.json('user', 'create', '--name', 'tina');
    await project.json('user', 'token', 'create', '--user', 'tina', '--name', 'laptop');
    const { code, stdout } = await project.run('user', 'token', 'list', '--user', 'tina');
    expect(code).toBe(0);
    const [header, ...rows] = stdout.trimEnd().split('\n');
    expect(header!.split(/\s{2,}/)).toEqual([
      'ID',
      'NAME',
      'USER',
      'PREFIX',
      'CREATED',
      'LAST USED',
      'REVOKED',
      'EXPIRES',
    ]);
    expect(rows.map((row) => row.split(/\s{2,}/).slice(1, 3)).sort()).toEqual([
      ['laptop', 'tina'],
      ['tina', 'tina'],
    ]);
    expect(stdout).not.toContain(user.id);
  });

  it('user invite list and tenant list are tables with a header', async () => {
    await project.json('user', 'invite', 'create', '--name', 'ivy');
    const invites = await project.run('user', 'invite', 'list');
    expect(invites.stdout).toMatch(/^ID\s+USER\s+PREFIX\s+STATUS\s+EXPIRES\n/);
    expect(invites.stdout).toMatch(/^\S+\s+ivy\s+hbi_\S+\s+pending\s+\S+Z$/m);
    const tenants = await project.run('tenant', 'list');
    expect(tenants.stdout).toMatch(/^ID\s+NAME\s+CREATED\s+UPDATED\n__default__\s+/);
  });
});

describe('a new account that can use nothing', () => {
  it('is created with a warning whose grant command runs as printed', async () => {
    const created = await project.run('user', 'create', '--name', 'nobody-yet');
    expect(created.code).toBe(0);
    expect(created.stderr).toBe(
      'warning: nobody-yet can use nothing yet: no access list was given. Grant access with, for example:\n' +
        "  workspace-hub user update nobody-yet --collection-access '*'\n",
    );
    const grant = created.stderr.split('\n')[1]!.trim();
    const words = [...grant.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]!);
    expect(words[0]).toBe('workspace-hub');
    const granted = await project.run(...words.slice(1));
    expect(granted.code, granted.stderr).toBe(0);
    const shown = await project.json('user', 'show', 'nobody-yet');
    expect(shown.collectionAccess).toEqual(['*']);

    const invited = await project.run('user', 'invite', 'create', '--name', 'invitee-empty');
    expect(invited.stderr).toContain('warning: invitee-empty can use nothing yet');
    const withAccess = await project.run(
      ...['user', 'create', '--name', 'some-access', '--snippet-access', '*'],
    );
    expect(withAccess.stderr).toBe('');
  });
});

describe('audit list', () => {
  it('says when more events exist than it shows, and --before reads the next ones', async () => {
    for (const name of ['page-a', 'page-b', 'page-c'])
      await project.json('user', 'create', '--name', name, '--snippet-access', '*');
    const first = await project.run('audit', 'list', '--limit', '2', '--action', 'user.created');
    expect(first.code).toBe(0);
    const lines = first.stdout.trimEnd().split('\n');
    const hint = lines.at(-1)!;
    const before = /--before (\S+)/.exec(hint)![1]!;
    expect(hint).toBe(
      `More events are older than these 2: add --before ${before} to this command for the next ones (or raise --limit, at most 1000; "audit export" writes them all).`,
    );
    const json = await project.json('audit', 'list', '--limit', '2', '--action', 'user.created');
    expect(json.nextBefore).toBe(before);
    expect(json.events.at(-1).id).toBe(before);
    const next = await project.json(
      ...['audit', 'list', '--limit', '2', '--action', 'user.created', '--before', before],
    );
    const seen = new Set(json.events.map((event: { id: string }) => event.id));
    expect(next.events.length).toBeGreaterThan(0);
    for (const event of next.events) expect(seen.has(event.id)).toBe(false);
    // The newest of the next page is older than the oldest of the first.
    expect(next.events[0].at <= json.events.at(-1).at).toBe(true);

    const all = await project.run('audit', 'list', '--limit', '1000');
    expect(all.stdout).not.toContain('More events');
  });
});

describe('--help', () => {
  it(`keeps every line of every command's help within ${HELP_WIDTH} columns, without trailing spaces`, async () => {
    const paths = await commandPaths();
    expect(paths.length).toBeGreaterThan(20);
    for (const path of paths) {
      const { code, stdout } = await project.run(...path, '--help');
      expect([path.join(' '), code]).toEqual([path.join(' '), 0]);
      for (const line of stdout.split('\n')) {
        expect([path.join(' '), line.length <= HELP_WIDTH]).toEqual([path.join(' '), true]);
        expect([path.join(' '), line]).toEqual([path.join(' '), line.trimEnd()]);
      }
    }
  }, 120_000);
});

describe('start and stop on the embedded database', () => {
  it('says once, at info, that Redis is not configured, sums up the migrations, and ends with "Stopped."', async () => {
    await withProject({ logging: { level: 'info' } }, async (fresh) => {
      const server = await startServer(fresh.dir, ['--port', '0']);
      expect(await server.stop()).toBe(0);
      const log = server.stderr();
      expect(log).not.toMatch(/ WARN /);
      expect(log.match(/INFO {2}No redis section/g)).toHaveLength(1);
      expect(log).toMatch(
        /INFO {2}No redis section: failed-auth throttling and notice streams stay in this process \(right for one instance\)\./,
      );
      expect(log).toMatch(
        /INFO {2}Applied \d+ database migration\(s\); logging\.level debug lists them\./,
      );
      expect(log).not.toContain('Applying migration');
      expect(log.trimEnd().split('\n').at(-1)).toMatch(/INFO {2}Stopped\.$/);
    });
  });
});

describe.runIf(driverAvailable('postgres'))('start on a shared database without Redis', () => {
  it('warns that several instances need a redis section', async () => {
    const database = await createTestDatabase('postgres');
    try {
      await withProject({ db: database.config, logging: { level: 'warn' } }, async (fresh) => {
        const server = await startServer(fresh.dir, ['--port', '0', '--migrate']);
        expect(await server.stop()).toBe(0);
        expect(server.stderr()).toContain(
          'WARN  No redis section on a shared postgres database: failed-auth throttling and notice streams stay in this process. Several instances need a redis section.',
        );
      });
    } finally {
      await database.drop();
    }
  });
});
