/**
 * Applies the migrations a database has not recorded yet, in dependency order: the kernel's, each
 * plugin's in turn, then the kernel's change feed and change sequence, which watch every table and
 * so come after all of them whatever their number. One line per migration at debug, one summary
 * at info: a list in that order reads as shuffled to an operator, and says nothing they act on.
 */
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
    log?.debug('Applying migration', { id: migration.id });
    await driver.applyMigration(migration);
    applied.push(migration.id);
  }
  if (applied.length > 0)
    log?.info(`Applied ${applied.length} database migration(s); logging.level debug lists them.`);
  return applied;
}
