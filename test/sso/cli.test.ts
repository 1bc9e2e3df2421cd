/**
 * The CLI as a real process with single sign-on: `user list` shows which users are linked to the
 * identity provider (a column in the table, `identityProvider` in the JSON records); `user token`
 * shows when tokens expire and gives a linked user's token the sign-in lifetime unless
 * `--expires-in-days` says otherwise; `sso links`, `sso block`, `sso blocks` and `sso unblock`.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_TENANT_ID } from '../../kernel/identity/tenants.ts';
import { createDriver } from '../../kernel/storage/create-driver.ts';
import { newId } from '../../kernel/identity/secrets.ts';
import { ssoLinksTable } from '../../plugins/sso/tables.ts';
import { quietLogging, useCliProject, type UsedProject } from '../helpers/cli.ts';

const ISSUER = 'https://idp.example.com';

/** Writes the link a sign-in would have written, in the project's database. */
const linker = (project: UsedProject) => async (userId: string, subject: string) => {
  const driver = await createDriver(project.database.config);
  try {
    const now = new Date().toISOString();
    await driver.forTenant(DEFAULT_TENANT_ID).table(ssoLinksTable).insert({
      id: newId(),
      issuer: ISSUER,
      subject,
      userId,
      createdAt: now,
      lastSignInAt: now,
    });
  } finally {
    await driver.close();
  }
};

describe('workspace-hub user list with single sign-on', () => {
  const project = useCliProject(
    'sqlite',
    {
      ...quietLogging,
      sso: { oidc: { issuer: ISSUER, clientId: 'workspace-hub' }, tokenTtlDays: 30 },
    },
    { migrate: true },
  );
  const link = linker(project);

  it('marks the users linked to the identity provider', async () => {
    const { user: linked } = await project.json('user', 'create', '--name', 'ivy');
    const { user: local } = await project.json('user', 'create', '--name', 'jack');
    await link(linked.id, 'ivy-subject');
    const { users } = await project.json('user', 'list');
    const byName = (name: string) => users.find((u: { name: string }) => u.name === name);
    expect(byName('ivy').identityProvider).toEqual({
      issuer: ISSUER,
      subject: 'ivy-subject',
    });
    expect(byName('jack').identityProvider).toBeUndefined();
    const table = (await project.run('user', 'list')).stdout.trimEnd().split('\n');
    expect(table[0]!.split(/\s{2,}/).at(-1)).toBe('SSO');
    expect(
      table
        .find((line) => line.startsWith(linked.id))!
        .split(/\s{2,}/)
        .at(-1),
    ).toBe('linked');
    expect(
      table
        .find((line) => line.startsWith(local.id))!
        .split(/\s{2,}/)
        .at(-1),
    ).toBe('-');
  });

  it("gives a linked user's token the sign-in lifetime unless --expires-in-days says otherwise, and shows it", async () => {
    const { user } = await project.json('user', 'create', '--name', 'kit');
    await link(user.id, 'kit-subject');
    const before = Date.now();
    const token = (name: string, ...extra: string[]) =>
      ['user', 'token', 'create', '--user', 'kit', '--name', name, ...extra] as const;
    const created = await project.run(...token('laptop'));
    expect(created.code, created.stderr).toBe(0);
    const expires = /^Expires: (\S+)$/m.exec(created.stdout)![1]!;
    expect(Date.parse(expires) - before).toBeGreaterThanOrEqual(30 * 86_400_000 - 1000);
    expect(Date.parse(expires) - before).toBeLessThan(30 * 86_400_000 + 60_000);
    const forever = await project.json(...token('server', '--expires-in-days', 'never'));
    expect(forever.token.expiresAt).toBeNull();
    const week = await project.json(...token('phone', '--expires-in-days', '7'));
    expect(Date.parse(week.token.expiresAt) - before).toBeLessThan(7 * 86_400_000 + 60_000);
    const bad = await project.run(...token('x', '--expires-in-days', '0'));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      '--expires-in-days must be a whole number from 1 to 3650, or "never"',
    );

    const { tokens } = await project.json('user', 'token', 'list', '--user', 'kit');
    expect(
      tokens.map((t: { name: string; expiresAt: string | null }) => [t.name, t.expiresAt]),
    ).toEqual(
      expect.arrayContaining([
        ['laptop', expires],
        ['server', null],
      ]),
    );
    // The table shows times to the second, and "never" for a token without an expiry.
    const text = (await project.run('user', 'token', 'list', '--user', 'kit')).stdout;
    const expiresOf = (name: string) =>
      text
        .split('\n')
        .map((line) => line.split(/\s{2,}/))
        .find((cells) => cells[1] === name)
        ?.at(-1);
    expect(expiresOf('laptop')).toBe(expires.replace(/\.\d+Z$/, 'Z'));
    expect(expiresOf('server')).toBe('never');
  });

  it('lists links, blocks a linked user or a subject, lists and lifts blocks', async () => {
    const { user } = await project.json('user', 'create', '--name', 'liv');
    await link(user.id, 'liv-subject');
    const { token } = await project.json(
      'user',
      'token',
      'create',
      '--user',
      'liv',
      '--name',
      'pc',
    );
    const links = (await project.run('sso', 'links')).stdout.split('\n');
    expect(links[0]!.split(/\s{2,}/)).toEqual(['USER', 'SUBJECT', 'ISSUER', 'LAST SIGN-IN']);
    expect(
      links
        .find((line) => line.startsWith('liv '))!
        .split(/\s{2,}/)
        .slice(1, 3),
    ).toEqual(['liv-subject', ISSUER]);

    const blocked = await project.run('sso', 'block', 'liv');
    expect(blocked.code, blocked.stderr).toBe(0);
    expect(blocked.stdout).toContain('Blocked "liv" (subject liv-subject) from signing in');
    const { tokens } = await project.json('user', 'token', 'list', '--user', 'liv');
    expect(tokens.find((t: { id: string }) => t.id === token.id).revokedAt).not.toBeNull();
    const twice = await project.run('sso', 'block', 'liv');
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain('already blocked');

    const bySubject = await project.json('sso', 'block', '--subject', 'someone-else');
    expect(bySubject.block).toMatchObject({ subject: 'someone-else', issuer: ISSUER, name: '' });
    const { blocks } = await project.json('sso', 'blocks');
    expect(blocks.map((b: { subject: string }) => b.subject)).toEqual([
      'liv-subject',
      'someone-else',
    ]);
    const lifted = await project.run('sso', 'unblock', bySubject.block.id);
    expect(lifted.stdout).toContain('Lifted the block of (subject someone-else).');
    expect((await project.run('sso', 'unblock', bySubject.block.id)).code).toBe(1);
    const byName = await project.json('sso', 'unblock', 'liv');
    expect(byName.unblocked).toMatchObject({ subject: 'liv-subject', name: 'liv' });
    expect((await project.json('sso', 'blocks')).blocks).toEqual([]);
    const neither = await project.run('sso', 'block');
    expect(neither.code).toBe(2);
    expect(neither.stderr).toContain('Name a linked user, or a person with --subject');
    const unlinked = await project.run('sso', 'block', 'jack');
    expect(unlinked.code).toBe(1);
    expect(unlinked.stderr).toContain('not linked to the identity provider');
  });

  it('runs the offboarding commands of docs/deploy.md as printed', async () => {
    const doc = await readFile(new URL('../../docs/deploy.md', import.meta.url), 'utf8');
    const block = [...doc.matchAll(/```sh\n([\s\S]*?)```/g)]
      .map((m) => m[1]!)
      .find((text) => text.includes('workspace-hub sso block alice'))!;
    const commands = block
      .split('\n')
      .map((line) => line.replace(/#.*$/, '').trim())
      .filter(Boolean);
    expect(commands).toHaveLength(5);
    const { user } = await project.json('user', 'create', '--name', 'alice');
    await link(user.id, 'alice-subject');
    for (const command of commands) {
      const [bin, ...args] = command.split(/\s+/);
      expect(bin).toBe('workspace-hub');
      const result = await project.run(...args);
      expect(result.code, `${command}: ${result.stderr}`).toBe(0);
    }
    expect((await project.json('sso', 'blocks')).blocks).toEqual([]);
  });

  it('links an existing user with a one-time link or a subject, and unlinks one', async () => {
    const { user } = await project.json('user', 'create', '--name', 'mo');
    const printed = await project.run('sso', 'link', 'mo');
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout).toMatch(/^One-time link for "mo", valid until \S+:$/m);
    expect(printed.stdout).toMatch(/^ {2}http:\/\/127\.0\.0\.1:\d+\/login\?link=hbl_[\w-]{43}$/m);
    const again = await project.json('sso', 'link', 'mo', '--expires-in-hours', '2');
    expect(Date.parse(again.expiresAt) - Date.now()).toBeLessThan(2 * 3_600_000 + 60_000);
    expect((await project.run('sso', 'link', 'mo', '--expires-in-hours', '169')).code).toBe(2);

    const linked = await project.json('sso', 'link', 'mo', '--subject', 'mo-subject');
    expect(linked.link).toMatchObject({ userId: user.id, subject: 'mo-subject', issuer: ISSUER });
    const same = await project.run('sso', 'link', 'mo', '--subject', 'mo-subject');
    expect([same.code, same.stdout]).toEqual([
      0,
      `"mo" is linked to subject mo-subject of ${ISSUER} already.\n`,
    ]);
    const twice = await project.run('sso', 'link', 'mo', '--subject', 'other');
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain('is linked to the identity provider already');
    expect((await project.run('sso', 'unlink', 'mo')).stdout).toContain(
      'Unlinked "mo" from the identity provider.',
    );
    expect((await project.run('sso', 'unlink', 'mo')).code).toBe(1);
  });

  it('runs the linking commands of docs/deploy.md as printed', async () => {
    const doc = await readFile(new URL('../../docs/deploy.md', import.meta.url), 'utf8');
    const block = [...doc.matchAll(/```sh\n([\s\S]*?)```/g)]
      .map((m) => m[1]!)
      .find((text) => text.includes('workspace-hub sso link alice'))!;
    // (The offboarding commands above deleted their alice.)
    await project.json('user', 'create', '--name', 'alice');
    await project.json('user', 'create', '--name', 'bob');
    for (const line of block
      .split('\n')
      .map((l) => l.replace(/#.*$/, '').trim())
      .filter(Boolean)) {
      const [bin, ...args] = line.split(/\s+/);
      expect(bin).toBe('workspace-hub');
      const result = await project.run(...args);
      expect(result.code, `${line}: ${result.stderr}`).toBe(0);
    }
  });
});

describe("workspace-hub with single sign-on whose client secret only the service's environment holds", () => {
  const project = useCliProject(
    'sqlite',
    {
      ...quietLogging,
      sso: {
        oidc: { issuer: ISSUER, clientId: 'workspace-hub', clientSecret: '${HUB_TEST_NEVER_SET}' },
        tokenTtlDays: 30,
      },
    },
    { migrate: true },
  );
  const link = linker(project);

  it("leaves out only the secret: a linked user's token keeps the sign-in lifetime, a block the issuer", async () => {
    const { user } = await project.json('user', 'create', '--name', 'kit');
    await link(user.id, 'kit-subject');
    const before = Date.now();
    const created = await project.run(
      ...['user', 'token', 'create', '--user', 'kit', '--name', 'laptop'],
    );
    expect(created.code, created.stderr).toBe(0);
    expect(created.stderr).toBe(
      `warning: ${join(project.dir, 'server.yaml')}: HUB_TEST_NEVER_SET (sso.oidc.clientSecret) is not set in this environment; this command does not use sso.oidc.clientSecret, so it runs without it.\n`,
    );
    const expires = /^Expires: (\S+)$/m.exec(created.stdout)![1]!;
    expect(Date.parse(expires) - before).toBeGreaterThanOrEqual(30 * 86_400_000 - 1000);
    const blocked = await project.json('sso', 'block', '--subject', 'someone');
    expect(blocked.block.issuer).toBe(ISSUER);
  });
});
