/**
 * What the kernel and the plugins declare of the database: every migration and table, in the
 * order they apply (kernel first, then plugins in dependency order), and the error a start gives
 * when the database is behind. The hub, `workspace-hub migrate` and export/import all read these.
 */
import { kernelSections } from './config/sections.ts';
import {
  changeFeedMigration,
  changeSequenceMigration,
  kernelMigrations,
  kernelTables,
} from './identity/provision.ts';
import type { PluginDefinition } from './plugin.ts';
import { orderPlugins } from './registry.ts';
import type { Logger } from './log.ts';
import type { Migration, StorageDriver } from './storage/contract.ts';
import { runMigrations } from './storage/migrate.ts';
import type { Table } from './storage/table.ts';

/** Every migration of the kernel and the given plugins, kernel first, then plugins in dependency order. */
export function collectMigrations(plugins: readonly PluginDefinition<any>[]): Migration[] {
  const ordered = orderPlugins(plugins, Object.keys(kernelSections));
  return [
    ...kernelMigrations,
    ...ordered.flatMap((p) => p.migrations ?? []),
    changeFeedMigration(collectTables(plugins)),
    changeSequenceMigration(collectTables(plugins)),
  ];
}

/** Every table of the kernel and the given plugins (what export and import iterate). */
export function collectTables(plugins: readonly PluginDefinition<any>[]): Table[] {
  return [
    ...kernelTables,
    ...orderPlugins(plugins, Object.keys(kernelSections)).flatMap((p) => p.tables ?? []),
  ];
}

export class PendingMigrationsError extends Error {
  constructor(pending: readonly string[]) {
    super(
      `The database schema is not up to date (${pending.length} pending migration(s): ${pending.join(', ')}). Run "workspace-hub migrate" first, or start with --migrate.`,
    );
    this.name = 'PendingMigrationsError';
  }
}

/** Applies the pending migrations when `migrate` allows it; otherwise refuses to serve on them. */
export async function catchUpSchema(
  driver: StorageDriver,
  migrations: readonly Migration[],
  migrate: boolean,
  log: Logger,
): Promise<void> {
  const applied = new Set(await driver.appliedMigrations());
  const pending = migrations.filter((m) => !applied.has(m.id)).map((m) => m.id);
  if (pending.length === 0) return;
  if (!migrate) throw new PendingMigrationsError(pending);
  await runMigrations(driver, migrations, log);
}
