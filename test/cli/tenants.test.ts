/** `tenant …` and `--tenant` on PostgreSQL when configured, else the embedded SQLite. */
import { beforeAll, describe, expect, it } from 'vitest';
import { quietLogging, useCliProject } from '../helpers/cli.ts';
import { serverOrEmbedded } from '../helpers/databases.ts';

/** PostgreSQL when HUB_TEST_PG_URL is set (always in CI), else the embedded SQLite. */
const DRIVER = serverOrEmbedded();

describe(`workspace-hub tenant (${DRIVER})`, () => {
  const project = useCliProject(
    DRIVER,
    { multitenancy: { enabled: true }, ...quietLogging },
    { migrate: true },
  );
  let single: string;

  beforeAll(async () => {
    single = await project.writeConfig('single.yaml', {
      db: project.database.config,
      ...quietLogging,
    });
  });

  it('lists the default tenant on a new database', async () => {
    const { tenants } = await project.json('tenant', 'list');
    expect(tenants.map((tenant: { id: string }) => tenant.id)).toEqual(['__default__']);
  });

  it('creates a tenant whose accounts are separate from the default tenant', async () => {
    const created = await project.run('tenant', 'create', 'acme', '--name', 'Acme Inc');
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toContain('Created tenant "Acme Inc" (acme).');

    const { user } = await project.json('user', 'create', '--name', 'alice', '--tenant', 'acme');
    const inAcme = await project.json('user', 'list', '--tenant', 'acme');
    expect(inAcme.users.map((u: { id: string }) => u.id)).toEqual([user.id]);
    const inDefault = await project.json('user', 'list');
    expect(inDefault.users.map((u: { id: string }) => u.id)).not.toContain(user.id);

    const { tenants } = await project.json('tenant', 'list');
    expect(tenants.map((tenant: { id: string }) => tenant.id)).toEqual(['__default__', 'acme']);
  });

  it('refuses a duplicate or malformed tenant id', async () => {
    await project.run('tenant', 'create', 'dup', '--name', 'Dup');
    const duplicate = await project.run('tenant', 'create', 'dup', '--name', 'Dup again');
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr.trim()).toBe('A tenant with id "dup" already exists.');
    const malformed = await project.run('tenant', 'create', 'no spaces', '--name', 'Bad');
    expect(malformed.code).toBe(1);
    expect(malformed.stderr).toContain(
      'Tenant id may only contain letters, digits, underscores, and hyphens.',
    );
  });

  it('deletes a tenant and its accounts', async () => {
    await project.run('tenant', 'create', 'gone', '--name', 'Gone');
    await project.json('user', 'create', '--name', 'temp', '--tenant', 'gone');
    const deleted = await project.run('tenant', 'delete', 'gone');
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stdout.trim()).toBe('Deleted tenant "Gone" (gone).');
    const users = await project.database.query("SELECT id FROM users WHERE tenant_id = 'gone'");
    expect(users).toEqual([]);
    const list = await project.run('user', 'list', '--tenant', 'gone');
    expect(list.code).toBe(1);
    expect(list.stderr.trim()).toBe('No tenant found with id "gone".');
  });

  it('refuses to delete the default tenant', async () => {
    const { code, stderr } = await project.run('tenant', 'delete', '__default__');
    expect(code).toBe(1);
    expect(stderr).toContain('cannot be deleted');
  });

  it('refuses tenant commands and --tenant when multitenancy is off', async () => {
    const create = await project.run(
      'tenant',
      'create',
      'other',
      '--name',
      'Other',
      '--config',
      single,
    );
    expect(create.code).toBe(1);
    expect(create.stderr.trim()).toBe(
      'Multitenancy is disabled in server.yaml. Set multitenancy.enabled to true to use non-default tenants.',
    );
    const list = await project.run('user', 'list', '--tenant', 'acme', '--config', single);
    expect(list.code).toBe(1);
    expect(list.stderr).toContain('Multitenancy is disabled in server.yaml');
  });
});
