/**
 * The `workspace-hub` command line tool: the root command and its groups. Each command module is
 * small and loads the kernel only when it runs, so `--help` and argument errors stay fast.
 */
import { defineCommand } from 'citty';
import { HUB_VERSION } from '../kernel/version.ts';
import { runCli } from './runner.ts';

/** The root command; every action is a subcommand, imported when it is used. */
export const rootCommand = defineCommand({
  meta: {
    name: 'workspace-hub',
    version: HUB_VERSION,
    description: 'Self-hosted server for teams that share API-client workspaces',
  },
  subCommands: {
    start: () => import('./commands/start.ts').then((m) => m.startCommand),
    reload: () => import('./commands/reload.ts').then((m) => m.reloadCommand),
    migrate: () => import('./commands/migrate.ts').then((m) => m.migrateCommand),
    user: () => import('./commands/user.ts').then((m) => m.userCommand),
    tenant: () => import('./commands/tenant.ts').then((m) => m.tenantCommand),
    audit: () => import('./commands/audit.ts').then((m) => m.auditCommand),
    history: () => import('./commands/history.ts').then((m) => m.historyCommand),
    sso: () => import('./commands/sso.ts').then((m) => m.ssoCommand),
    backup: () => import('./commands/backup.ts').then((m) => m.backupCommand),
    export: () => import('./commands/transfer.ts').then((m) => m.exportCommand),
    import: () => import('./commands/transfer.ts').then((m) => m.importCommand),
  },
});

/** Runs the CLI on the given arguments (without `node` and the script path). */
export function main(rawArgs: readonly string[] = process.argv.slice(2)): Promise<void> {
  return runCli(rootCommand, rawArgs);
}
