/** The CLI's behaviour that needs no database: help, version, flag and config errors. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HUB_VERSION } from '../../kernel/version.ts';
import { createProject, quietLogging, type Project } from '../helpers/cli.ts';

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
  it('rejects an unknown command with exit code 2', async () => {
    const { code, stderr } = await project.run('usr', 'list');
    expect(code).toBe(2);
    expect(stderr).toContain('Unknown command "usr"');
  });

  it('rejects an unknown option instead of ignoring it', async () => {
    const { code, stderr, stdout } = await project.run(
      'user',
      'update',
      'some-id',
      '--colection-access',
      '*',
    );
    expect(code).toBe(2);
    expect(stderr).toContain('Unknown option --colection-access');
    expect(stdout).toBe('');
  });

  it('names a missing required option', async () => {
    const { code, stderr } = await project.run('user', 'token', 'create', '--user', 'x');
    expect(code).toBe(2);
    expect(stderr).toContain('--name');
  });

  it('rejects a wildcard mixed with ids before touching the database', async () => {
    const { code, stderr, stdout } = await project.run(
      'user',
      'create',
      '--name',
      'alice',
      '--collection-access',
      '*',
      '--collection-access',
      '3f0e5b4c-0000-4000-8000-000000000001',
    );
    expect(code).toBe(2);
    expect(stderr).toContain('--collection-access: Wildcard access "*" must be the only entry.');
    expect(stdout).toBe('');
  });

  it('rejects a wildcard mixed with ids in a comma-separated list', async () => {
    const { code, stderr } = await project.run(
      'user',
      'create',
      '--name',
      'alice',
      '--snippet-access',
      'a,*',
    );
    expect(code).toBe(2);
    expect(stderr).toContain('--snippet-access: Wildcard access "*" must be the only entry.');
  });

  it('rejects entity access flags for an admin before touching the database', async () => {
    const { code, stderr } = await project.run(
      'user',
      'create',
      '--name',
      'root',
      '--role',
      'admin',
      '--environment-access',
      '*',
    );
    expect(code).toBe(2);
    expect(stderr).toContain('--environment-access cannot be used with --role admin');
  });

  it('rejects access flags when an update promotes the user to admin', async () => {
    const { code, stderr } = await project.run(
      'user',
      'update',
      'some-id',
      '--role',
      'admin',
      '--live-server-access',
      'x',
    );
    expect(code).toBe(2);
    expect(stderr).toContain('--live-server-access cannot be used with --role admin');
  });

  it('rejects a negative monthly token cap', async () => {
    const { code, stderr } = await project.run(
      'user',
      'create',
      '--name',
      'alice',
      '--llm-monthly-tokens',
      '-5',
    );
    expect(code).toBe(2);
    expect(stderr).toContain('--llm-monthly-tokens must be a whole number');
  });

  it('rejects an unknown role', async () => {
    const { code, stderr } = await project.run(
      'user',
      'create',
      '--name',
      'alice',
      '--role',
      'owner',
    );
    expect(code).toBe(2);
    expect(stderr).toContain('--role');
  });

  it('refuses a non-default tenant when multitenancy is disabled', async () => {
    const { code, stderr } = await project.run('user', 'list', '--tenant', 'acme');
    expect(code).toBe(1);
    expect(stderr.trim()).toBe(
      'Multitenancy is disabled in server.yaml. Set multitenancy.enabled to true to use non-default tenants.',
    );
  });

  it('refuses tenant create when multitenancy is disabled', async () => {
    const { code, stderr } = await project.run('tenant', 'create', 'acme', '--name', 'Acme');
    expect(code).toBe(1);
    expect(stderr).toContain('Multitenancy is disabled in server.yaml');
  });

  it('rejects an update with no changes', async () => {
    const { code, stderr } = await project.run('user', 'update', 'some-id');
    expect(code).toBe(2);
    expect(stderr).toContain('Nothing to update');
  });
});

describe('workspace-hub config errors', () => {
  it('names the unknown key of a bad server.yaml and exits 3 without a stack trace', async () => {
    const bad = await createProject({ server: { prot: 8788 } });
    try {
      const { code, stderr, stdout } = await bad.run('user', 'list');
      expect(code).toBe(3);
      expect(stderr).toContain('server.prot');
      expect(stderr).not.toMatch(/^\s+at /m);
      expect(stdout).toBe('');
    } finally {
      await bad.remove();
    }
  });

  it('reports a missing --config file', async () => {
    const { code, stderr } = await project.run('migrate', '--config', 'missing.yaml');
    expect(code).toBe(3);
    expect(stderr).toContain('Config file not found');
  });

  it('reports a config error from start with exit code 3', async () => {
    const bad = await createProject({ multitenancy: { enabled: 'maybe' } });
    try {
      const { code, stderr } = await bad.run('start', '--port', '0');
      expect(code).toBe(3);
      expect(stderr).toContain('multitenancy.enabled');
    } finally {
      await bad.remove();
    }
  });

  it('prints the stack trace only with --verbose', async () => {
    const { code, stderr } = await project.run('user', 'list', '--verbose');
    expect(code).toBe(1);
    expect(stderr).toMatch(/^\s+at /m);
  });
});
