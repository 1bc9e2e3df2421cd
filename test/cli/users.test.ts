/** `user …` and `user token …` on PostgreSQL when configured (else the embedded SQLite), through the real CLI process. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createProject, quietLogging, useCliProject } from '../helpers/cli.ts';
import { serverOrEmbedded } from '../helpers/databases.ts';

/** PostgreSQL when HUB_TEST_PG_URL is set (always in CI), else the embedded SQLite. */
const DRIVER = serverOrEmbedded();

const USER_KEYS = [
  'id',
  'name',
  'role',
  'avatarInitials',
  'avatarColor',
  'collectionAccess',
  'environmentAccess',
  'snippetAccess',
  'liveServerAccess',
  'livePageAccess',
  'llmAccess',
  'llmModels',
  'llmMonthlyTokenLimit',
  'createdAt',
  'updatedAt',
].sort();
const TOKEN_KEYS = [
  'id',
  'userId',
  'name',
  'tokenPrefix',
  'createdAt',
  'lastUsedAt',
  'revokedAt',
  'expiresAt',
].sort();

describe(`workspace-hub user (${DRIVER})`, () => {
  const project = useCliProject(DRIVER, quietLogging, { migrate: true });

  it('creates a user and a token with the same JSON shape as POST /admin/users', async () => {
    const result = await project.json(
      'user',
      'create',
      '--name',
      'alice',
      '--collection-access',
      '*',
      '--llm-access',
      '--llm-model',
      '*',
      '--llm-monthly-tokens',
      '5000',
    );
    expect(Object.keys(result).sort()).toEqual(['secret', 'token', 'user']);
    expect(Object.keys(result.user).sort()).toEqual(USER_KEYS);
    expect(Object.keys(result.token).sort()).toEqual(TOKEN_KEYS);
    expect(result.secret).toMatch(/^hbk_[A-Za-z0-9_-]{40,}$/);
    expect(result.user).toMatchObject({
      name: 'alice',
      role: 'user',
      collectionAccess: ['*'],
      environmentAccess: [],
      llmAccess: true,
      llmModels: ['*'],
      llmMonthlyTokenLimit: 5000,
    });
    expect(result.token).toMatchObject({ userId: result.user.id, name: 'alice', revokedAt: null });
    expect(result.secret.startsWith(result.token.tokenPrefix)).toBe(true);
  });

  it('prints the secret once with a warning in human output', async () => {
    const { code, stdout } = await project.run(
      'user',
      'create',
      '--name',
      'bob',
      '--snippet-access',
      '*',
    );
    expect(code).toBe(0);
    expect(stdout).toMatch(/Created user "bob" \([0-9a-f-]{36}\) with role user\./);
    expect(stdout).toContain('Store this token now; it will not be shown again:');
    expect(stdout.match(/hbk_[A-Za-z0-9_-]{40,}/g)).toHaveLength(1);
  });

  it('refuses a duplicate name with the service message, naming the flag', async () => {
    const { code, stderr } = await project.run('user', 'create', '--name', 'ALICE');
    expect(code).toBe(1);
    expect(stderr.trim()).toBe('--name: User name "ALICE" is already in use.');
  });

  it('refuses specific ids that do not exist', async () => {
    const { code, stderr } = await project.run(
      'user',
      'create',
      '--name',
      'carol',
      '--collection-access',
      '3f0e5b4c-0000-4000-8000-000000000001',
    );
    expect(code).toBe(1);
    expect(stderr).toContain('Unknown collection id: 3f0e5b4c-0000-4000-8000-000000000001.');
  });

  it('lists users without the internal system account', async () => {
    const { users } = await project.json('user', 'list');
    const names = users.map((user: { name: string }) => user.name);
    expect(names).toEqual(expect.arrayContaining(['alice', 'bob']));
    expect(names).not.toContain('system');
    for (const user of users) expect(user.warnings).toEqual([]);
    const human = await project.run('user', 'list');
    const [header, ...lines] = human.stdout.trimEnd().split('\n');
    expect(header!.split(/\s{2,}/)).toEqual(['ID', 'NAME', 'ROLE', 'ACCESS', 'CREATED', 'SSO']);
    // One row per user: id, name, role, access summary, creation time, single sign-on link.
    expect(lines).toHaveLength(users.length);
    const alice = users.find((user: { name: string }) => user.name === 'alice');
    const row = lines.find((line) => line.startsWith(alice.id))!.split(/\s{2,}/);
    expect(row).toEqual([
      alice.id,
      'alice',
      'user',
      'collections *, llm',
      alice.createdAt.replace(/\.\d+Z$/, 'Z'),
      '-',
    ]);
    expect(alice.identityProvider).toBeUndefined();
    expect(human.stdout).not.toMatch(/\bsystem\b/);
  });

  it('reads --config and --json before the command, from a directory without server.yaml', async () => {
    const elsewhere = await createProject();
    try {
      const before = await elsewhere.run(
        '--config',
        join(project.dir, 'server.yaml'),
        '--json',
        'user',
        'list',
      );
      expect(before.code, before.stderr).toBe(0);
      const after = await elsewhere.run(
        'user',
        'list',
        '--json',
        '--config',
        join(project.dir, 'server.yaml'),
      );
      expect(JSON.parse(after.stdout)).toEqual(JSON.parse(before.stdout));
      expect(JSON.parse(before.stdout).users.map((user: { name: string }) => user.name)).toEqual(
        expect.arrayContaining(['alice', 'bob']),
      );
    } finally {
      await elsewhere.remove();
    }
  });

  it('prints a failed operation as JSON on stderr with exit code 1', async () => {
    const { code, stdout, stderr } = await project.run(
      'user',
      'show',
      '00000000-0000-4000-8000-000000000000',
      '--json',
    );
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(JSON.parse(stderr)).toEqual({
      error: 'No user found with id or name 00000000-0000-4000-8000-000000000000.',
    });
  });

  it('shows, updates and deletes a user', async () => {
    const { user } = await project.json(
      'user',
      'create',
      '--name',
      'dave',
      '--environment-access',
      '*',
      '--avatar-initials',
      'dv',
      '--avatar-color',
      'teal-600',
    );
    // `user show` adds the user's stored run results against the limits (defaults here).
    expect(await project.json('user', 'show', user.id)).toEqual({
      ...user,
      runResultUsage: {
        userId: user.id,
        count: 0,
        bytes: 0,
        limits: { count: 1000, bytes: 256 * 1024 * 1024 },
      },
    });
    const shown = await project.run('user', 'show', user.id);
    expect(shown.stdout).toMatch(/^ {2}run results: +0 of 1000$/m);
    expect(shown.stdout).toMatch(/^ {2}run result bytes: +0 bytes of 256 MiB$/m);

    const updated = await project.json(
      'user',
      'update',
      user.id,
      '--name',
      'david',
      '--snippet-access',
      '*',
      '--llm-monthly-tokens',
      'unlimited',
    );
    expect(updated).toMatchObject({
      name: 'david',
      environmentAccess: ['*'],
      snippetAccess: ['*'],
      avatarInitials: 'DV',
      llmMonthlyTokenLimit: null,
    });

    const promoted = await project.json(
      'user',
      'update',
      user.id,
      '--role',
      'admin',
      '--llm-access',
    );
    expect(promoted).toMatchObject({
      role: 'admin',
      environmentAccess: [],
      snippetAccess: [],
      llmAccess: true,
    });
    const demoted = await project.json(
      'user',
      'update',
      user.id,
      '--role',
      'user',
      '--no-llm-access',
      '--collection-access',
      '*',
    );
    expect(demoted).toMatchObject({ role: 'user', collectionAccess: ['*'], llmAccess: false });

    const deleted = await project.run('user', 'delete', user.id);
    expect(deleted.code).toBe(0);
    expect(deleted.stdout.trim()).toBe(`Deleted user "david" (${user.id}).`);
    expect((await project.fails('user', 'show', user.id)).trim()).toBe(
      `No user found with id or name ${user.id}.`,
    );
  });

  it('refuses to delete or give tokens to the internal system account', async () => {
    const [system] = await project.database.query<{ id: string }>(
      'SELECT id FROM users WHERE name = $1',
      ['system'],
    );
    expect(await project.fails('user', 'delete', system!.id)).toContain('internal system account');
    expect(
      await project.fails('user', 'token', 'create', '--user', system!.id, '--name', 'sneaky'),
    ).toContain('internal system account');
  });

  it('creates, lists and revokes tokens', async () => {
    const { user } = await project.json('user', 'create', '--name', 'erin');
    const created = await project.json(
      'user',
      'token',
      'create',
      '--user',
      user.id,
      '--name',
      'laptop',
    );
    expect(Object.keys(created).sort()).toEqual(['secret', 'token']);
    expect(Object.keys(created.token).sort()).toEqual(TOKEN_KEYS);
    expect(created.secret).toMatch(/^hbk_/);
    expect(created.token).toMatchObject({ userId: user.id, name: 'laptop' });

    const { tokens } = await project.json('user', 'token', 'list', '--user', user.id);
    expect(tokens.map((token: { name: string }) => token.name).sort()).toEqual(['erin', 'laptop']);
    for (const token of tokens) expect(token).not.toHaveProperty('secret');

    const revoked = await project.run('user', 'token', 'revoke', created.token.id);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout.trim()).toBe(`Revoked API token "laptop" (${created.token.id}).`);
    expect((await project.fails('user', 'token', 'revoke', created.token.id)).trim()).toBe(
      `No active API token found with id ${created.token.id}.`,
    );

    const after = await project.json('user', 'token', 'list', '--user', user.id);
    const laptop = after.tokens.find((token: { id: string }) => token.id === created.token.id);
    expect(laptop.revokedAt).toEqual(expect.any(String));
  });

  it('refuses a token for an unknown user', async () => {
    const { code, stderr } = await project.run(
      'user',
      'token',
      'create',
      '--user',
      '00000000-0000-4000-8000-000000000000',
      '--name',
      'x',
    );
    expect(code).toBe(1);
    expect(stderr.trim()).toBe(
      'No user found with id or name 00000000-0000-4000-8000-000000000000.',
    );
  });
  it('takes a user name wherever it takes a user id, in any case', async () => {
    const { user } = await project.json('user', 'create', '--name', 'Frank');
    expect((await project.json('user', 'show', 'frank')).id).toBe(user.id);
    const shown = await project.run('user', 'show', 'FRANK');
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(user.id);

    const updated = await project.json('user', 'update', 'frank', '--snippet-access', '*');
    expect(updated).toMatchObject({ id: user.id, snippetAccess: ['*'] });

    const created = await project.json(
      'user',
      'token',
      'create',
      '--user',
      'Frank',
      '--name',
      'pc',
    );
    expect(created.token).toMatchObject({ userId: user.id, name: 'pc' });
    const { tokens } = await project.json('user', 'token', 'list', '--user', 'frank');
    expect(tokens.map((token: { name: string }) => token.name).sort()).toEqual(['Frank', 'pc']);

    const invited = await project.json('user', 'invite', 'create', '--user', 'frank');
    expect(invited.user.id).toBe(user.id);

    const deleted = await project.run('user', 'delete', 'frank');
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stdout.trim()).toBe(`Deleted user "Frank" (${user.id}).`);
    expect((await project.fails('user', 'show', 'frank')).trim()).toBe(
      'No user found with id or name frank.',
    );
  });

  it('prefers an exact id over a user named like that id', async () => {
    const { user: owner } = await project.json('user', 'create', '--name', 'grace');
    // A second account whose name is the first one's id.
    const { user: impostor } = await project.json('user', 'create', '--name', owner.id);
    expect((await project.json('user', 'show', owner.id)).name).toBe('grace');
    const token = await project.json('user', 'token', 'create', '--user', owner.id, '--name', 't');
    expect(token.token.userId).toBe(owner.id);
    // The impostor is still reachable by its own id.
    expect((await project.json('user', 'show', impostor.id)).name).toBe(owner.id);
  });

  it('says there is no such user for an unknown name, and shows no system account by name', async () => {
    for (const args of [
      ['user', 'show', 'nobody'],
      ['user', 'update', 'nobody', '--role', 'admin'],
      ['user', 'delete', 'nobody'],
      ['user', 'token', 'create', '--user', 'nobody', '--name', 'x'],
      ['user', 'token', 'list', '--user', 'nobody'],
      ['user', 'invite', 'create', '--user', 'nobody'],
    ]) {
      const { code, stderr } = await project.run(...args);
      expect(code, args.join(' ')).toBe(1);
      expect(stderr.trim(), args.join(' ')).toBe('No user found with id or name nobody.');
    }
    expect((await project.fails('user', 'show', 'system')).trim()).toBe(
      'No user found with id or name system.',
    );
  });
});
