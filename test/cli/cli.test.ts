/** The CLI's behaviour that needs no database: help, version, flag and config errors. */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HUB_VERSION } from '../../kernel/version.ts';
import { createProject, quietLogging, withProject, type Project } from '../helpers/cli.ts';

// Nothing listens on port 1: a command that reached the database would fail with a connection
// error instead of the message asserted, which proves the check ran before the database was opened.
const unreachableDb = {
  driver: 'postgres',
  host: '127.0.0.1',
  port: 1,
  user: 'nobody',
  database: 'nothing',
  connectionTimeoutMillis: 2000,
};

let project: Project;
beforeAll(async () => {
  project = await createProject({ db: unreachableDb, ...quietLogging });
});
afterAll(() => project.remove());

describe('workspace-hub help and version', () => {
  it('lists the commands in --help', async () => {
    const { code, stdout } = await project.run('--help');
    expect(code).toBe(0);
    for (const command of ['start', 'migrate', 'user', 'tenant']) expect(stdout).toContain(command);
  });

  it('prints the usage when no subcommand is given', async () => {
    const { code, stdout } = await project.run();
    expect(code).toBe(0);
    expect(stdout).toContain('USAGE');
    expect(stdout).toContain('migrate');
  });

  it('lists the user subcommands in user --help', async () => {
    const { code, stdout } = await project.run('user', '--help');
    expect(code).toBe(0);
    for (const command of ['create', 'list', 'show', 'update', 'delete', 'token'])
      expect(stdout).toContain(command);
  });

  it('describes every flag of user create in its help', async () => {
    const { code, stdout } = await project.run('user', 'create', '--help');
    expect(code).toBe(0);
    for (const flag of [
      '--name',
      '--role',
      '--collection-access',
      '--live-page-access',
      '--llm-monthly-tokens',
      '--tenant',
      '--json',
      '--config',
    ]) {
      expect(stdout).toContain(flag);
    }
    expect(stdout).toContain('workspace-hub user create');
  });

  it('shows --no-llm-access in the help of user update', async () => {
    const { stdout } = await project.run('user', 'update', '--help');
    expect(stdout).toContain('--no-llm-access');
  });

  it('lists the token subcommands in user token --help', async () => {
    const { code, stdout } = await project.run('user', 'token', '--help');
    expect(code).toBe(0);
    for (const command of ['create', 'list', 'revoke']) expect(stdout).toContain(command);
  });

  it('prints the version with --version', async () => {
    const { code, stdout } = await project.run('--version');
    expect(code).toBe(0);
    expect(stdout.trim()).toBe(HUB_VERSION);
  });
});

describe('workspace-hub argument errors', () => {
  const id = '3f0e5b4c-0000-4000-8000-000000000001';
  // `args` split on spaces; `stdout` where the command must print nothing on it.
  it.each<{ title: string; args: string; code: number; stderr: string; stdout?: string }>([
    {
      title: 'rejects an unknown command with exit code 2',
      args: 'usr list',
      code: 2,
      stderr: 'Unknown command "usr"',
    },
    {
      title: 'rejects an unknown option instead of ignoring it',
      args: 'user update some-id --colection-access *',
      code: 2,
      stderr: 'Unknown option --colection-access',
      stdout: '',
    },
    {
      title: 'names a missing required option',
      args: 'user token create --user x',
      code: 2,
      stderr: '--name',
    },
    {
      title: 'rejects a wildcard mixed with ids before touching the database',
      args: `user create --name alice --collection-access * --collection-access ${id}`,
      code: 2,
      stderr: '--collection-access: Wildcard access "*" must be the only entry.',
      stdout: '',
    },
    {
      title: 'rejects a wildcard mixed with ids in a comma-separated list',
      args: 'user create --name alice --snippet-access a,*',
      code: 2,
      stderr: '--snippet-access: Wildcard access "*" must be the only entry.',
    },
    {
      title: 'rejects entity access flags for an admin before touching the database',
      args: 'user create --name root --role admin --environment-access *',
      code: 2,
      stderr: '--environment-access cannot be used with --role admin',
    },
    {
      title: 'rejects access flags when an update promotes the user to admin',
      args: 'user update some-id --role admin --live-server-access x',
      code: 2,
      stderr: '--live-server-access cannot be used with --role admin',
    },
    {
      title: 'rejects a negative monthly token cap',
      args: 'user create --name alice --llm-monthly-tokens -5',
      code: 2,
      stderr: '--llm-monthly-tokens must be a whole number',
    },
    {
      title: 'rejects an unknown role',
      args: 'user create --name alice --role owner',
      code: 2,
      stderr: '--role',
    },
    {
      title: 'refuses tenant create when multitenancy is disabled',
      args: 'tenant create acme --name Acme',
      code: 1,
      stderr: 'Multitenancy is disabled in server.yaml',
    },
    {
      title: 'rejects an update with no changes',
      args: 'user update some-id',
      code: 2,
      stderr: 'Nothing to update',
    },
  ])('$title', async ({ args, code, stderr, stdout }) => {
    const result = await project.run(...args.split(' '));
    expect(result.code).toBe(code);
    expect(result.stderr).toContain(stderr);
    if (stdout !== undefined) expect(result.stdout).toBe(stdout);
  });

  it('refuses a non-default tenant when multitenancy is disabled', async () => {
    const { code, stderr } = await project.run('user', 'list', '--tenant', 'acme');
    expect(code).toBe(1);
    expect(stderr.trim()).toBe(
      'Multitenancy is disabled in server.yaml. Set multitenancy.enabled to true to use non-default tenants.',
    );
  });
});

describe('workspace-hub config errors', () => {
  it('names the unknown key of a bad server.yaml and exits 3 without a stack trace', async () => {
    await withProject({ server: { prot: 8788 } }, async (bad) => {
      const { code, stderr, stdout } = await bad.run('user', 'list');
      expect(code).toBe(3);
      expect(stderr).toContain('server.prot');
      expect(stderr).not.toMatch(/^\s+at /m);
      expect(stdout).toBe('');
    });
  });

  it.each([{ command: 'start --port 0' }, { command: 'user list' }, { command: 'reload' }])(
    'shows the offending line of a YAML syntax error with a caret, exit code 3 ($command)',
    async ({ command }) => {
      await withProject(undefined, async (bad) => {
        await writeFile(join(bad.dir, 'server.yaml'), 'server:\n  port: 8788\n host: 0.0.0.0\n');
        const { code, stderr, stdout } = await bad.run(...command.split(' '));
        expect(code).toBe(3);
        expect(stdout).toBe('');
        expect(stderr.split('\n').slice(1)).toEqual([
          '  2 |   port: 8788',
          '  3 |  host: 0.0.0.0',
          '    | ^',
          '',
        ]);
        expect(stderr.split('\n')[0]).toMatch(
          /server\.yaml: invalid YAML: .* at line 3, column 1:$/,
        );
      });
    },
  );

  it('runs a command without a section it does not use whose variable this shell lacks, with a warning; start still refuses', async () => {
    const metrics = { enabled: true, token: '${HUB_TEST_NEVER_SET}' };
    await withProject({ metrics, ...quietLogging }, async (project) => {
      const file = join(project.dir, 'server.yaml');
      const warning = `warning: ${file}: HUB_TEST_NEVER_SET (metrics.token) is not set in this environment; this command does not use the metrics section, so it runs without it.\n`;
      const migrated = await project.run('migrate');
      expect([migrated.code, migrated.stderr]).toEqual([0, warning]);
      const listed = await project.run('user', 'list');
      expect([listed.code, listed.stderr]).toEqual([0, warning]);
      expect(listed.stdout).toBe('No users found.\n');

      const start = await project.run('start', '--port', '0');
      expect(start.code).toBe(3);
      expect(start.stderr).toBe(
        `${file}: metrics.token: Missing environment variable HUB_TEST_NEVER_SET for config key metrics.token\n`,
      );
    });
  });

  it('still stops a command on a variable missing in a section it uses', async () => {
    await withProject({ db: { driver: 'sqlite', path: '${HUB_TEST_NEVER_SET}' } }, async (bad) => {
      const { code, stderr } = await bad.run('user', 'list');
      expect(code).toBe(3);
      expect(stderr).toContain(
        'db.path: Missing environment variable HUB_TEST_NEVER_SET for config key db.path',
      );
    });
  });

  it('reports a missing --config file', async () => {
    const { code, stderr } = await project.run('migrate', '--config', 'missing.yaml');
    expect(code).toBe(3);
    expect(stderr).toContain('Config file not found');
  });

  it('reports a config error from start with exit code 3', async () => {
    await withProject({ multitenancy: { enabled: 'maybe' } }, async (bad) => {
      const { code, stderr } = await bad.run('start', '--port', '0');
      expect(code).toBe(3);
      expect(stderr).toContain('multitenancy.enabled');
    });
  });

  it('prints the stack trace only with --verbose', async () => {
    const { code, stderr } = await project.run('user', 'list', '--verbose');
    expect(code).toBe(1);
    expect(stderr).toMatch(/^\s+at /m);
  });
});
