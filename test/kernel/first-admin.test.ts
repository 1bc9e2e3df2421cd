/** The first admin account: created once in the life of a database, even by racing instances. */
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../kernel/clock.ts';
import { createIdentity } from '../../kernel/identity/identity.ts';
import {
  ensureFirstAdmin,
  kernelMigrations,
  kernelTables,
  provision,
} from '../../kernel/identity/provision.ts';
import { usersTable } from '../../kernel/identity/tables.ts';
import { DEFAULT_TENANT_ID } from '../../kernel/identity/tenants.ts';
import { silentLogger } from '../../kernel/log.ts';
import { runMigrations } from '../../kernel/storage/migrate.ts';
import { allDrivers, openTestDriver, type TestDriver } from '../helpers/drivers.ts';

describe.each(allDrivers())('the first admin on %s', (kind) => {
  let db: TestDriver | undefined;
  afterEach(async () => {
    await db?.cleanup();
    db = undefined;
  });

  const setUp = async () => {
    db = await openTestDriver(kind);
    await runMigrations(db.driver, kernelMigrations, silentLogger);
    const identity = createIdentity({
      driver: () => db!.driver,
      clock: systemClock,
      tables: () => kernelTables,
    });
    await provision(db.driver, identity, systemClock, silentLogger);
    return identity;
  };

  it('is created exactly once when several instances start together on an empty database', async () => {
    const identity = await setUp();
    const results = await Promise.all(
      Array.from({ length: 4 }, () => ensureFirstAdmin(db!.driver, identity, systemClock)),
    );
    const created = results.filter((result) => result !== null);
    expect(created).toHaveLength(1);
    expect(created[0]!.secret).toMatch(/^hbk_/);
    const admins = await db!.driver
      .forTenant(DEFAULT_TENANT_ID)
      .table(usersTable)
      .find({ where: { system: false } });
    expect(admins.map((user) => [user.name, user.role])).toEqual([['admin', 'admin']]);
    expect(await ensureFirstAdmin(db!.driver, identity, systemClock)).toBeNull();
  });

  it('is never created on a database that already has accounts', async () => {
    const identity = await setUp();
    await identity.users.create(db!.driver.forTenant(DEFAULT_TENANT_ID), {
      name: 'existing',
      role: 'user',
    });
    expect(await ensureFirstAdmin(db!.driver, identity, systemClock)).toBeNull();
    expect(
      await db!.driver.forTenant(DEFAULT_TENANT_ID).table(usersTable).count({ name: 'admin' }),
    ).toBe(0);
  });
});
