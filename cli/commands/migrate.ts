/**
 * `workspace-hub migrate`: apply pending schema migrations, then provision (default tenant, system
 * accounts). On Firestore it also tells the operator which composite indexes to create (Firestore
 * cannot create them from a client): gcloud commands, or a firestore.indexes.json file with
 * `--firestore-indexes <path>`.
 */
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { defineCommand } from 'citty';
import type { Migration } from '../../kernel/storage/contract.ts';
import type { FirestoreDbConfig } from '../../kernel/storage/config.ts';
import type { CompositeIndex } from '../../kernel/storage/firestore/indexes.ts';
import { commonArgs, jsonArg } from '../args.ts';
import { UsageError } from '../errors.ts';
import { createProgress, print, printJson } from '../output.ts';

/** The kernel, loaded when the command runs. */
async function migrateModules() {
  const [hub, schema, context, driver, migrate, throttle, plugins] = await Promise.all([
    import('../../kernel/hub.ts'),
    import('../../kernel/schema.ts'),
    import('../context.ts'),
    import('../../kernel/storage/create-driver.ts'),
    import('../../kernel/storage/migrate.ts'),
    import('../../kernel/throttle/memory.ts'),
    import('../../plugins/index.ts'),
  ]);
  return {
    ...hub,
    ...schema,
    ...context,
    ...driver,
    ...migrate,
    ...throttle,
    plugins: plugins.plugins,
  };
}

/** What an operator must create on Firestore; `file` when written with `--firestore-indexes`. */
interface FirestoreIndexReport {
  indexes: CompositeIndex[];
  commands: string[];
  file?: string;
}

/** Every composite index the migrations' tables need (all of them, not only those applied now). */
async function firestoreIndexes(
  db: FirestoreDbConfig,
  migrations: readonly Migration[],
  filePath: string | undefined,
): Promise<FirestoreIndexReport> {
  // Imported only on Firestore, so SQL hubs never load the Firestore client.
  const { compositeIndexes, indexCommands, indexFile, tablesOf } =
    await import('../../kernel/storage/firestore/indexes.ts');
  const tables = tablesOf(migrations);
  const report: FirestoreIndexReport = {
    indexes: compositeIndexes(tables),
    commands: indexCommands(tables, db.databaseId ?? '(default)', db.projectId),
  };
  if (filePath !== undefined) {
    report.file = resolve(filePath);
    await writeFile(report.file, indexFile(tables));
  }
  return report;
}

function firestoreLines(report: FirestoreIndexReport): string[] {
  const count = report.indexes.length;
  if (report.file) {
    return [
      `Wrote ${count} Firestore composite index(es) to ${report.file}.`,
      'Deploy them with: firebase deploy --only firestore:indexes',
    ];
  }
  return [
    `Firestore needs ${count} composite index(es). Create each once per database (building takes a few minutes),`,
    'or write them to a file with --firestore-indexes firestore.indexes.json:',
    ...report.commands.map((command) => `  ${command}`),
  ];
}

/** The `migrate` command. */
export const migrateCommand = defineCommand({
  meta: { name: 'workspace-hub migrate', description: 'Apply pending database migrations' },
  args: {
    'firestore-indexes': {
      type: 'string',
      valueHint: 'path',
      description:
        'On Firestore: write the composite indexes to this firestore.indexes.json instead of printing gcloud commands',
    },
    ...jsonArg,
    ...commonArgs,
  },
  async run({ args }) {
    const {
      collectMigrations,
      commandLogger,
      createDriver,
      createHub,
      createMemoryThrottleStore,
      loadCliConfig,
      plugins,
      runMigrations,
    } = await migrateModules();
    const { config, path } = await loadCliConfig(args);
    const indexPath = args['firestore-indexes'];
    if (indexPath !== undefined && config.db.driver !== 'firestore') {
      throw new UsageError(
        `--firestore-indexes applies only to db.driver: firestore (this config uses ${config.db.driver}).`,
      );
    }
    if (indexPath !== undefined && indexPath.trim() === '')
      throw new UsageError('--firestore-indexes needs a file path.');
    const log = commandLogger(config, args.verbose);
    const migrations = collectMigrations(plugins);
    const driver = await createDriver(config.db);
    try {
      const progress = createProgress('Migrating', { json: args.json });
      let applied: string[];
      try {
        applied = await runMigrations(driver, migrations, log, (id, total) =>
          progress.step(id, total),
        );
      } finally {
        progress.done();
      }
      // Opening the hub on the migrated driver runs the same provisioning as a server start; the
      // hub does not close a driver it was given, so one connection serves both steps.
      const hub = await createHub({
        config,
        configPath: path,
        plugins,
        driver,
        throttle: createMemoryThrottleStore(),
        log,
        migrate: true,
      });
      await hub.close();
      const indexes =
        config.db.driver === 'firestore'
          ? await firestoreIndexes(config.db, migrations, indexPath)
          : undefined;
      if (args.json)
        return printJson({ applied, ...(indexes ? { firestoreIndexes: indexes } : {}) });
      print(
        applied.length === 0
          ? 'Database is up to date.'
          : `Applied ${applied.length} migration(s), in dependency order: ${applied.join(', ')}`,
      );
      if (indexes) print(...firestoreLines(indexes));
    } finally {
      await driver.close();
    }
  },
});
