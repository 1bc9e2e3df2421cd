/**
 * `workspace-hub backup --out <file>`: a consistent copy of the embedded SQLite database, taken
 * while the server keeps running (one read snapshot; writers are not held up). Restore: stop the
 * server and copy the file back to `db.path`. Server databases have their own tools.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineCommand } from 'citty';
import type { DbConfig } from '../../kernel/storage/config.ts';
import { commonArgs, jsonArg } from '../args.ts';
import { CliError, UsageError } from '../errors.ts';
import { print, printJson } from '../output.ts';

/** What to use instead on a server database. */
const OTHER_TOOLS: Record<Exclude<DbConfig['driver'], 'sqlite'>, string> = {
  postgres: 'use pg_dump (and pg_restore or psql to restore)',
  mysql: 'use mysqldump (or mariadb-dump) and load the dump with mysql to restore',
  firestore: 'use gcloud firestore export (and gcloud firestore import to restore)',
  pglite: 'the pglite driver is no longer supported',
};

export const backupCommand = defineCommand({
  meta: {
    name: 'workspace-hub backup',
    description: 'Copy the embedded SQLite database to a new file while the server runs',
  },
  args: {
    out: {
      type: 'string',
      valueHint: 'file',
      description: 'The backup file to create (must not exist)',
      required: true,
    },
    ...jsonArg,
    ...commonArgs,
  },
  async run({ args }) {
    const out = args.out?.trim();
    if (!out) throw new UsageError('--out needs the path of the backup file to create.');
    // The kernel loads only when the command runs, so `--help` stays instant.
    const { loadCliConfig, requireHubDatabase } = await import('../hub-modules.ts');
    const { createDriver } = await import('../../kernel/storage/create-driver.ts');
    const { config } = await loadCliConfig(args);
    const db = config.db;
    if (db.driver !== 'sqlite') {
      throw new CliError(
        `backup copies the embedded SQLite database only; this config uses db.driver: ${db.driver}, so ${OTHER_TOOLS[db.driver]}.`,
      );
    }
    if (db.path === ':memory:')
      throw new CliError('db.path is :memory:, which has nothing to back up.');
    const source = resolve(db.path);
    requireHubDatabase(db);
    if (existsSync(resolve(out)))
      throw new CliError(`${resolve(out)} already exists; choose a new file name.`);
    const driver = await createDriver(db);
    // Progress is for people at a terminal; scripts and --json get the result alone.
    const progress = !args.json && process.stderr.isTTY === true;
    try {
      if (progress) process.stderr.write(`Backing up ${source} …\n`);
      const result = await driver.backup!(out);
      if (args.json) return printJson({ source, out: result.path, bytes: result.bytes });
      print(
        `Backed up ${source} to ${result.path} (${result.bytes} bytes).`,
        'To restore: stop the server, then copy this file to db.path.',
      );
    } finally {
      await driver.close();
    }
  },
});
