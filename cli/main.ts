/** The `workspace-hub` command line tool: the root command and its groups. */
import { defineCommand } from 'citty';
import { HUB_VERSION } from '../kernel/version.ts';
import { backupCommand } from './commands/backup.ts';
import { migrateCommand } from './commands/migrate.ts';
import { startCommand } from './commands/start.ts';
import { tenantCommand } from './commands/tenant.ts';
import { exportCommand, importCommand } from './commands/transfer.ts';
import { userCommand } from './commands/user.ts';
import { runCli } from './runner.ts';

/** The root command; every action is a subcommand. */
export const rootCommand = defineCommand({
  meta: {
    name: 'workspace-hub',
    version: HUB_VERSION,
    description: 'Self-hosted server for teams that share API-client workspaces',
  },
  subCommands: {
    start: startCommand,
    migrate: migrateCommand,
    user: userCommand,
    tenant: tenantCommand,
    backup: backupCommand,
    export: exportCommand,
    import: importCommand,
  },
});

/** Runs the CLI on the given arguments (without `node` and the script path). */
export function main(rawArgs: readonly string[] = process.argv.slice(2)): Promise<void> {
  return runCli(rootCommand, rawArgs);
}
