/** Applies the migrations a database has not recorded yet, in order. */
import type { Logger } from '../log.ts';
import type { Migration, StorageDriver } from './contract.ts';

export async function runMigrations(driver: StorageDriver, migrations: readonly Migration[], log?: Logger): Promise<string[]> {
  const done = new Set(await driver.appliedMigrations());
  const applied: string[] = [];
  for (const migration of migrations) {
    if (done.has(migration.id)) continue;
    log?.info('Applying migration', { id: migration.id });
    await driver.applyMigration(migration);
    applied.push(migration.id);
  }
  return applied;
}
