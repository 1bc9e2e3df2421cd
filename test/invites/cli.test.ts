/**
 * `workspace-hub user invite …` as a real process, on PostgreSQL when configured (always in CI), else
 * on the embedded SQLite.
 */
import { describe, expect, it } from 'vitest';
import { quietLogging, useCliProject } from '../helpers/cli.ts';
import { serverOrEmbedded } from '../helpers/databases.ts';

const DRIVER = serverOrEmbedded();

describe(`workspace-hub user invite (${DRIVER})`, () => {
  const project = useCliProject(
    DRIVER,
    { server: { host: '0.0.0.0', port: 9123 }, invites: { expiresInHours: 12 }, ...quietLogging },
    { migrate: true },
  );

  it('invites a new user and prints the join link with the secret in its fragment', async () => {
    const result = await project.json(
      'user',
      'invite',
      'create',
      '--name',
      'Dana Q',
      '--collection-access',
      '*',
    );
    expect(Object.keys(result).sort()).toEqual(['invitation', 'link', 'secret', 'user']);
    expect(result.secret).toMatch(/^hbi_[A-Za-z0-9_-]{43}$/);
    expect(result.invitation).toMatchObject({
      userId: result.user.id,
      status: 'pending',
      codePrefix: result.secret.slice(0, 12),
    });
    expect(Date.parse(result.invitation.expiresAt) - Date.parse(result.invitation.createdAt)).toBe(
      12 * 3_600_000,
    );
    const link = new URL(result.link);
    expect(`${link.origin}${link.pathname}`).toBe('http://127.0.0.1:9123/join');
    expect(Object.fromEntries(link.searchParams)).toMatchObject({
      url: 'http://127.0.0.1:9123',
      name: 'Dana Q',
      role: 'user',
      exp: result.invitation.expiresAt,
    });
    expect(link.hash).toBe(`#code=${result.secret}`);
    const tokens = await project.database.query('SELECT id FROM api_tokens WHERE user_id = $1', [
      result.user.id,
    ]);
    expect(tokens).toHaveLength(0);
    const stored = await project.database.query(
      'SELECT code_hash FROM user_invitations WHERE id = $1',
      [result.invitation.id],
    );
    expect(stored[0].code_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('prints the secret once in human output, uses --base-url and --expires-in-hours', async () => {
    const { code, stdout } = await project.run(
      'user',
      'invite',
      'create',
      '--name',
      'eve',
      '--role',
      'admin',
      '--base-url',
      'https://hub.example.com/',
      '--expires-in-hours',
      '2',
    );
    expect(code).toBe(0);
    expect(stdout).toMatch(/Created invited user "eve" \([0-9a-f-]{36}\) with role admin\./);
    expect(stdout).toMatch(/Invitation prefix: hbi_.{8}\n/);
    const lines = stdout.split('\n');
    const secret =
      lines[lines.indexOf('Store this invitation secret now; it will not be shown again:') + 1]!;
    expect(secret).toMatch(/^hbi_/);
    const link =
      lines[lines.indexOf('Invitation link (paste into File → Accept Team Hub Invite):') + 1]!;
    expect(
      link.startsWith(
        'https://hub.example.com/join?url=https%3A%2F%2Fhub.example.com&name=eve&role=admin&exp=',
      ),
    ).toBe(true);
    expect(link.endsWith(`#code=${secret}`)).toBe(true);
  });

  it('builds links on server.publicUrl when set; --base-url still wins', async () => {
    const config = await project.writeConfig('public.yaml', {
      db: project.database.config,
      server: { host: '0.0.0.0', port: 9123, publicUrl: 'https://team.example.org/hub' },
      ...quietLogging,
    });
    const result = await project.json(
      '--config',
      config,
      'user',
      'invite',
      'create',
      '--name',
      'frances',
    );
    expect(
      result.link.startsWith(
        'https://team.example.org/hub/join?url=https%3A%2F%2Fteam.example.org%2Fhub&name=frances&',
      ),
    ).toBe(true);
    const flagged = await project.json(
      'user',
      'invite',
      'create',
      '--user',
      result.user.id,
      '--base-url',
      'https://other.example.net',
      '--config',
      config,
    );
    expect(
      flagged.link.startsWith(
        'https://other.example.net/join?url=https%3A%2F%2Fother.example.net&',
      ),
    ).toBe(true);
  });

  it('re-invites an existing user with --user, and lists and revokes invitations', async () => {
    const created = await project.json('user', 'create', '--name', 'frank');
    const again = await project.json('user', 'invite', 'create', '--user', created.user.id);
    expect(again.user.id).toBe(created.user.id);
    const { invitations } = await project.json('user', 'invite', 'list');
    expect(invitations[0]).toMatchObject({ id: again.invitation.id, status: 'pending' });
    const listed = await project.run('user', 'invite', 'list');
    // A table with a header, the invited user by name.
    expect(listed.stdout).toMatch(/^ID\s+USER\s+PREFIX\s+STATUS\s+EXPIRES\n/);
    expect(listed.stdout).toMatch(
      new RegExp(
        `^${again.invitation.id}\\s+frank\\s+${again.invitation.codePrefix}\\s+pending\\s+\\S+Z$`,
        'm',
      ),
    );
    expect(listed.stdout).not.toContain(again.secret);

    const revoked = await project.run('user', 'invite', 'revoke', again.invitation.id);
    expect(revoked).toMatchObject({
      code: 0,
      stdout: `Revoked invitation ${again.invitation.id}.\n`,
    });
    const twice = await project.run('user', 'invite', 'revoke', again.invitation.id);
    expect(twice.code).toBe(1);
    expect(twice.stderr.trim()).toBe(`No pending invitation found with id ${again.invitation.id}.`);
  });

  it('refuses bad flags with exit code 2 and an unknown user with exit code 1', async () => {
    // Exit code 2: the command line is wrong; 1: the operation failed (here, no such user).
    const cases: [string[], RegExp, number][] = [
      [['--name', 'x', '--base-url', 'ftp://hub'], /--base-url must use http or https/, 2],
      [
        ['--name', 'x', '--expires-in-hours', '0'],
        /--expires-in-hours must be a whole number from 1 to 8760, got "0"\./,
        2,
      ],
      [['--user', 'abc', '--name', 'x'], /cannot be combined/, 2],
      [[], /Give --name for a new user, or --user/, 2],
      [
        ['--user', '00000000-0000-4000-8000-000000000000'],
        /No user found with id or name 00000000-0000-4000-8000-000000000000\./,
        1,
      ],
    ];
    for (const [flags, message, exitCode] of cases) {
      const { code, stderr } = await project.run('user', 'invite', 'create', ...flags);
      expect(code, flags.join(' ')).toBe(exitCode);
      expect(stderr).toMatch(message);
    }
  });
});
