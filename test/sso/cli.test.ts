/**
 * `workspace-hub user list` as a real process shows which users are linked to the identity
 * provider: a column in the table, `identityProvider` in the JSON records.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_TENANT_ID } from '../../kernel/identity/tenants.ts';
import { createDriver } from '../../kernel/storage/create-driver.ts';
import { newId } from '../../kernel/identity/secrets.ts';
import { ssoLinksTable } from '../../plugins/sso/tables.ts';
import { quietLogging, useCliProject } from '../helpers/cli.ts';

describe('workspace-hub user list with single sign-on', () => {
  const project = useCliProject('sqlite', quietLogging, { migrate: true });

  it('marks the users linked to the identity provider', async () => {
    const { user: linked } = await project.json('user', 'create', '--name', 'ivy');
    const { user: local } = await project.json('user', 'create', '--name', 'jack');
    // The link a sign-in would have written.
    const driver = await createDriver(project.database.config);
    try {
      const now = new Date().toISOString();
      await driver.forTenant(DEFAULT_TENANT_ID).table(ssoLinksTable).insert({
        id: newId(),
        issuer: 'https://idp.example.com',
        subject: 'ivy-subject',
        userId: linked.id,
        createdAt: now,
        lastSignInAt: now,
      });
    } finally {
      await driver.close();
    }
    const { users } = await project.json('user', 'list');
    const byName = (name: string) => users.find((u: { name: string }) => u.name === name);
    expect(byName('ivy').identityProvider).toEqual({
      issuer: 'https://idp.example.com',
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
});
