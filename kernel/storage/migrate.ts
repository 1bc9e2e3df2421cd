/** Applies the migrations a database has not recorded yet, in order. */
import type { Logger } from '../log.ts';
import type { Migration, StorageDriver } from './contract.ts';

export async function runMigrations(
  driver: StorageDriver,
  migrations: readonly Migration[],
  log?: Logger,
  /** Called before each migration is applied (the CLI shows progress with it). */
  onApply?: (id: string, pendingCount: number) => void,
): Promise<string[]> {
  const done = new Set(await driver.appliedMigrations());
  const pending = migrations.filter((migration) => !done.has(migration.id));
  const applied: string[] = [];
  for (const migration of pending) {
    onApply?.(migration.id, pending.length);
    log?.info('Applying migration', { id: migration.id });
    await driver.applyMigration(migration);
    applied.push(migration.id);
  }
  return applied;
}
