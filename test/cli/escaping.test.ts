/**
 * Names that reached the database without the hub's checks (stored before it refused them, or
 * written straight into the tables) never reach the terminal raw: every table, block and message
 * of the CLI prints controls and bidirectional overrides escaped, and `--json` stays valid JSON
 * with them as JSON escapes. On PostgreSQL when configured, else the embedded SQLite; the test writes behind the hub.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { quietLogging, useCliProject } from '../helpers/cli.ts';
import { serverOrEmbedded } from '../helpers/databases.ts';

/** PostgreSQL when HUB_TEST_PG_URL is set (always in CI), else the embedded SQLite. */
const DRIVER = serverOrEmbedded();

/** U+009B is a one-byte CSI: `\u009b2J` clears a terminal that honours C1 controls. */
const HOSTILE = 'evil\u009b2J\u202egnp.exe\u001b[31m\u0007';
const ESCAPED = 'evil\\u009b2J\\u202egnp.exe\\u001b[31m\\u0007';
/** Anything that would act on a terminal or reorder text, raw. */
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

describe(`escaped output of the CLI (${DRIVER})`, () => {
  const project = useCliProject(
    DRIVER,
    { ...quietLogging, multitenancy: { enabled: true } },
    { migrate: true },
  );

  let user: { id: string };
  /** A user and a token whose names are then set behind the hub's back, and a tenant likewise. */
  beforeAll(async () => {
    ({ user } = await hostileRows());
  });
  async function hostileRows() {
    const { user, token } = await project.json('user', 'create', '--name', 'plain');
    await project.json('tenant', 'create', 'acme', '--name', 'Acme');
    await project.json('user', 'invite', 'create', '--name', 'invitee');
    await project.database.query('UPDATE users SET name = $1, name_key = $2 WHERE id = $3', [
      HOSTILE,
      HOSTILE.toLowerCase(),
      user.id,
    ]);
    await project.database.query('UPDATE api_tokens SET name = $1 WHERE id = $2', [
      HOSTILE,
      token.id,
    ]);
    await project.database.query("UPDATE tenants SET name = $1 WHERE id = 'acme'", [HOSTILE]);
    return { user, token };
  }

  it('prints stored control and bidi characters escaped in every table, block and message', async () => {
    const outputs = {
      'user list': await project.run('user', 'list'),
      'user show': await project.run('user', 'show', user.id),
      'user token list': await project.run('user', 'token', 'list'),
      'user invite list': await project.run('user', 'invite', 'list'),
      'tenant list': await project.run('tenant', 'list'),
      'user update': await project.run('user', 'update', user.id, '--role', 'admin'),
    };
    for (const [command, { code, stdout, stderr }] of Object.entries(outputs)) {
      expect(code, `${command}: ${stderr}`).toBe(0);
      expect(RAW.test(stdout), `${command} printed a raw control: ${JSON.stringify(stdout)}`).toBe(
        false,
      );
    }
    expect(outputs['user list'].stdout).toContain(ESCAPED);
    expect(outputs['user show'].stdout).toContain(`${ESCAPED} (${user.id})`);
    expect(outputs['user token list'].stdout).toContain(ESCAPED);
    expect(outputs['tenant list'].stdout).toContain(ESCAPED);
    expect(outputs['user update'].stdout).toContain(`Updated user "${ESCAPED}"`);

    // The table's columns line up with what is printed, escapes included.
    const lines = outputs['user list'].stdout.trimEnd().split('\n');
    const row = lines.find((line) => line.startsWith(user.id))!;
    expect(row.slice(lines[0]!.indexOf('ROLE'))).toMatch(/^user {2}none {2}/);
  });

  it('keeps --json valid, with the same names as JSON escapes and nothing raw', async () => {
    const users = await project.run('user', 'list', '--json');
    const tokens = await project.run('user', 'token', 'list', '--json');
    const tenants = await project.run('tenant', 'list', '--json');
    for (const { code, stdout } of [users, tokens, tenants]) {
      expect(code).toBe(0);
      expect(RAW.test(stdout)).toBe(false);
      expect(stdout).toContain('\\u009b');
      expect(stdout).toContain('\\u202e');
    }
    const names = (body: string, key: string) =>
      JSON.parse(body)[key].map((entry: { name: string }) => entry.name);
    expect(names(users.stdout, 'users')).toContain(HOSTILE);
    expect(names(tokens.stdout, 'tokens')).toContain(HOSTILE);
    expect(names(tenants.stdout, 'tenants')).toContain(HOSTILE);
  });

  it('escapes what an error message quotes, as text and as JSON', async () => {
    const text = await project.run('user', 'show', 'id\u009b2J\u202e');
    expect(text.code).toBe(1);
    expect(RAW.test(text.stderr)).toBe(false);
    expect(text.stderr).toContain('id\\u009b2J\\u202e');
    const json = await project.run('user', 'show', 'id\u009b2J\u202e', '--json');
    expect(RAW.test(json.stderr)).toBe(false);
    expect(JSON.parse(json.stderr).error).toContain('id\u009b2J\u202e');
  });

  it('refuses control and bidi characters in user, token and tenant names, naming the field', async () => {
    const user = await project.run('user', 'create', '--name', 'a\u202eb');
    expect([user.code, user.stderr.trim()]).toEqual([
      1,
      '--name: User name must not contain control or bidirectional-override characters.',
    ]);
    const { user: plain } = await project.json('user', 'create', '--name', 'plain2');
    const token = await project.run(
      'user',
      'token',
      'create',
      '--user',
      plain.id,
      '--name',
      'x\u009by',
    );
    expect([token.code, token.stderr.trim()]).toEqual([
      1,
      '--name: Token name must not contain control or bidirectional-override characters.',
    ]);
    const tenant = await project.run('tenant', 'create', 'beta', '--name', 'B\u2066eta');
    expect([tenant.code, tenant.stderr.trim()]).toEqual([
      1,
      '--name: Tenant name must not contain control or bidirectional-override characters.',
    ]);
    expect(
      (await project.json('tenant', 'list')).tenants.map((t: { id: string }) => t.id),
    ).not.toContain('beta');
  });
});
