/**
 * Global options (`--config`, `--json`, `--help`) before, between and after the command words, for
 * every command, and machine-readable errors with `--json`. A missing config file is the probe: a
 * command that did not read `--config` would not report that file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type Project } from '../helpers/cli.ts';

/** Every command: its words, and the arguments it requires. */
const COMMANDS: readonly (readonly [string[], string[]])[] = [
  [['start'], []],
  [['reload'], []],
  [['migrate'], []],
  [
    ['user', 'create'],
    ['--name', 'alice'],
  ],
  [['user', 'list'], []],
  [['user', 'show'], ['u1']],
  [
    ['user', 'update'],
    ['u1', '--name', 'alicia'],
  ],
  [['user', 'delete'], ['u1']],
  [
    ['user', 'token', 'create'],
    ['--user', 'u1', '--name', 'laptop'],
  ],
  [['user', 'token', 'list'], []],
  [['user', 'token', 'revoke'], ['t1']],
  [
    ['user', 'invite', 'create'],
    ['--name', 'bob'],
  ],
  [['user', 'invite', 'list'], []],
  [['user', 'invite', 'revoke'], ['i1']],
  [['tenant', 'list'], []],
  [
    ['tenant', 'create'],
    ['acme', '--name', 'Acme'],
  ],
  [['tenant', 'delete'], ['acme']],
];

let project: Project;
beforeAll(async () => {
  project = await createProject();
});
afterAll(() => project.remove());

describe.each(COMMANDS.map(([words, rest]) => [words.join(' '), words, rest] as const))(
  'workspace-hub %s',
  (_name, words, rest) => {
    const command = [...words, ...rest];
    const config = ['--config', 'missing.yaml'];

    it('reads --config and --json given before the command', async () => {
      const { code, stdout, stderr } = await project.run('--json', ...config, ...command);
      expect(code).toBe(3);
      expect(stdout).toBe('');
      expect(JSON.parse(stderr)).toEqual({
        error: expect.stringMatching(/^Config file not found: .*missing\.yaml$/),
      });
    });

    it('reads --config and --json given after the command', async () => {
      const { code, stdout, stderr } = await project.run(...command, ...config, '--json');
      expect(code).toBe(3);
      expect(stdout).toBe('');
      expect(JSON.parse(stderr)).toEqual({
        error: expect.stringMatching(/^Config file not found: .*missing\.yaml$/),
      });
    });

    it('reads --config given between the command words', async () => {
      const { code, stderr } = await project.run(words[0]!, ...config, ...words.slice(1), ...rest);
      expect(code).toBe(3);
      expect(stderr.trim()).toMatch(/^Config file not found: .*missing\.yaml$/);
    });

    it('prints the usage of the command for --help before or after it', async () => {
      const before = await project.run('--help', ...command);
      const after = await project.run(...command, '--help');
      expect(before.code).toBe(0);
      expect(after.code).toBe(0);
      expect(before.stdout).toContain(`workspace-hub ${words.join(' ')}`);
      expect(before.stdout).toContain('--config');
      expect(before.stdout).toContain('--json');
      expect(after.stdout).toBe(before.stdout);
    });
  },
);

describe('workspace-hub errors with --json', () => {
  it('prints a usage error as JSON with exit code 2', async () => {
    const { code, stdout, stderr } = await project.run('--json', 'user', 'create');
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(JSON.parse(stderr)).toEqual({ error: 'Missing required argument: --name' });
  });

  it('prints an unknown command as JSON with exit code 2', async () => {
    const { code, stderr } = await project.run('usr', 'list', '--json');
    expect(code).toBe(2);
    expect(JSON.parse(stderr).error).toContain('Unknown command "usr"');
  });

  it('refuses an option that is not global before the command, naming it', async () => {
    const { code, stderr } = await project.run('--name', 'alice', 'user', 'create');
    expect(code).toBe(2);
    expect(stderr).toContain('Unknown option --name');
  });

  it('names the flag of a malformed value as JSON', async () => {
    const { code, stderr } = await project.run(
      'user',
      'create',
      '--name',
      'alice',
      '--llm-monthly-tokens',
      'many',
      '--json',
    );
    expect(code).toBe(2);
    expect(JSON.parse(stderr)).toEqual({
      error:
        '--llm-monthly-tokens must be a whole number of 0 or more (or "unlimited"), got "many".',
    });
  });

  it('reports an invalid config file as JSON with exit code 3, listing every problem', async () => {
    const bad = await createProject({ server: { port: 'eighty', prot: 1 } });
    try {
      const { code, stderr } = await bad.run('user', 'list', '--json');
      expect(code).toBe(3);
      const { error } = JSON.parse(stderr);
      expect(error).toContain('server.prot: unknown key (did you mean port?)');
      expect(error).toContain('server.port: expected an integer, got "eighty"');
    } finally {
      await bad.remove();
    }
  });
});
