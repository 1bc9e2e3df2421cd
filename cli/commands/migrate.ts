/** `workspace-hub migrate`: apply pending schema migrations, then provision (default tenant, system accounts). */
import { defineCommand } from 'citty';
import { collectMigrations, createHub } from '../../kernel/hub.ts';
import { createDriver } from '../../kernel/storage/create-driver.ts';
import { runMigrations } from '../../kernel/storage/migrate.ts';
import { createMemoryThrottleStore } from '../../kernel/throttle/memory.ts';
import { plugins } from '../../plugins/index.ts';
import { commonArgs, jsonArg } from '../args.ts';
import { commandLogger, loadCliConfig } from '../context.ts';
import { print, printJson } from '../output.ts';

/** The `migrate` command. */
export const migrateCommand = defineCommand({
  meta: { name: 'workspace-hub migrate', description: 'Apply pending database migrations' },
  args: { ...jsonArg, ...commonArgs },
  async run({ args }) {
    const { config, path } = await loadCliConfig(args);
    const log = commandLogger(config, args.verbose);
    const driver = await createDriver(config.db);
    try {
      const applied = await runMigrations(driver, collectMigrations(plugins), log);
      // Opening the hub on the migrated driver runs the same provisioning as a server start; the
      // hub does not close a driver it was given, so one connection serves both steps.
      const hub = await createHub({ config, configPath: path, plugins, driver, throttle: createMemoryThrottleStore(), log, migrate: true });
      await hub.close();
      if (args.json) return printJson({ applied });
      if (applied.length === 0) return print('Database is up to date.');
      print(`Applied ${applied.length} migration(s): ${applied.join(', ')}`);
    } finally {
      await driver.close();
    }
  },
});
