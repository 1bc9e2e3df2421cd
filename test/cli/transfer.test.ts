/**
 * `workspace-hub export` and `import` as real processes: files private to their owner, never
 * overwritten, a schema that must be migrated first, a target that must be empty.
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { quietLogging, useCliProject } from '../helpers/cli.ts';
import { driverAvailable, serverOrEmbedded } from '../helpers/databases.ts';

/** PostgreSQL when HUB_TEST_PG_URL is set (always in CI), else the embedded SQLite. */
const DRIVER = serverOrEmbedded();
/** Another driver than the source's where one is configured. */
const TARGET = driverAvailable('mysql') ? 'mysql' : DRIVER;

describe(`workspace-hub export and import (processes, from ${DRIVER} to ${TARGET})`, () => {
  const source = useCliProject(DRIVER, quietLogging);
  const target = useCliProject(TARGET, quietLogging);

  it('exports to a new file readable by its owner only, and never overwrites one', async () => {
    expect((await source.run('migrate')).code).toBe(0);
    await source.json('user', 'create', '--name', 'alice', '--collection-access', '*');
    const result = await source.json('export', '--out', 'hub.json');
    expect(result.rowCount).toBeGreaterThanOrEqual(4);
    expect(result.tables.users).toBe(2); // alice and the system account
    const file = join(source.dir, 'hub.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({
      format: 'workspace-hub-export',
      version: 1,
    });

    const again = await source.run('export', '--out', 'hub.json');
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already exists');
    expect(JSON.parse(await readFile(file, 'utf8')).rowCount).toBe(result.rowCount);
  }, 240_000);

  it('imports only after migrate, keeps the accounts, and refuses to import twice', async () => {
    const file = join(source.dir, 'hub.json');
    const early = await target.run('import', file);
    expect(early.code).toBe(1);
    expect(early.stderr).toContain('workspace-hub migrate');

    expect((await target.run('migrate')).code).toBe(0);
    const imported = await target.json('import', file);
    expect(imported.tables.users).toBe(2);
    const { users } = await target.json('user', 'list');
    expect(users.map((user: { name: string }) => user.name)).toEqual(['alice']);
    const sourceUsers = (await source.json('user', 'list')).users;
    expect(users[0].id).toBe(sourceUsers[0].id);

    const twice = await target.run('import', file);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain('already holds data');
    expect((await target.json('user', 'list')).users).toHaveLength(1);
  }, 240_000);

  it('names a missing file', async () => {
    const missing = await target.run('import', 'no-such-export.json');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('does not exist');
  }, 60_000);
});
