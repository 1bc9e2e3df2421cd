/**
 * What `workspace-hub export` and `import` do once they run (cli/commands/transfer.ts declares
 * them). Kept apart so that `--help` never loads the kernel and the plugins.
 */
import { once } from 'node:events';
import { createReadStream } from 'node:fs';
import { basename, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { createHub } from '../kernel/hub.ts';
import { collectMigrations, collectTables, PendingMigrationsError } from '../kernel/schema.ts';
import type { AuditInput } from '../kernel/audit.ts';
import type { LoadedConfig } from '../kernel/config/load.ts';
import { tenantsTable } from '../kernel/identity/tables.ts';
import { DEFAULT_TENANT_ID } from '../kernel/identity/tenants.ts';
import type { StorageDriver } from '../kernel/storage/contract.ts';
import { CLI_CONTEXT } from '../kernel/storage/context.ts';
import { createDriver } from '../kernel/storage/create-driver.ts';
import { exportHub } from '../kernel/storage/transfer.ts';
import { importHub } from '../kernel/storage/transfer-import.ts';
import { createMemoryThrottleStore } from '../kernel/throttle/memory.ts';
import { HUB_VERSION } from '../kernel/version.ts';
import { plugins } from '../plugins/index.ts';
import {
  commandLogger,
  loadCliConfig,
  requireHubDatabase,
  resolveTenantOption,
} from './context.ts';
import { CliError, UsageError } from './errors.ts';
import { createNewFile, type NewFile } from './new-file.ts';
import { print, printJson } from './output.ts';

export interface ExportArgs {
  out?: string;
  tenant?: string;
  json?: boolean;
  config?: string;
  verbose?: boolean;
}

export interface ImportArgs {
  file: string;
  json?: boolean;
  config?: string;
  verbose?: boolean;
}

/** Progress on stderr, only when a person watches it (a TTY), at most a few times a second. */
function progressReporter(verb: string) {
  if (!process.stderr.isTTY) return { report: undefined, done: () => undefined };
  let last = 0;
  return {
    report(table: string, rows: number) {
      const now = Date.now();
      if (now - last < 200) return;
      last = now;
      process.stderr.write(`\r\u001b[2K${verb} ${table}: ${rows} row(s)`);
    },
    done: () => process.stderr.write('\r\u001b[2K'),
  };
}

/** The database must have every migration this version declares (export reads, import writes). */
async function assertCurrentSchema(driver: StorageDriver): Promise<void> {
  const applied = new Set(await driver.appliedMigrations());
  const pending = collectMigrations(plugins)
    .filter((m) => !applied.has(m.id))
    .map((m) => m.id);
  if (pending.length > 0) throw new PendingMigrationsError(pending);
}

/** The hub of `driver`, as a command sees it; closed after `fn`, the driver left open. */
async function withDriverHub(
  loaded: LoadedConfig,
  driver: StorageDriver,
  verbose: boolean | undefined,
  fn?: (hub: Awaited<ReturnType<typeof createHub>>) => Promise<void>,
): Promise<void> {
  const hub = await createHub({
    config: loaded.config,
    configPath: loaded.path,
    plugins,
    driver,
    throttle: createMemoryThrottleStore(),
    log: commandLogger(loaded.config, verbose),
    migrate: false,
  });
  try {
    await fn?.(hub);
  } finally {
    await hub.close();
  }
}

/** `export.run` / `import.run` in the audit log of the tenant concerned (the default for all). */
function recordTransfer(
  loaded: LoadedConfig,
  driver: StorageDriver,
  verbose: boolean | undefined,
  tenantId: string | undefined,
  event: AuditInput,
): Promise<void> {
  return withDriverHub(loaded, driver, verbose, (hub) =>
    hub.audit.record(driver.forTenant(tenantId ?? DEFAULT_TENANT_ID, CLI_CONTEXT), event),
  );
}

const transferDetails = (result: { rowCount: number; tables: object }, tenantId?: string) => ({
  rowCount: result.rowCount,
  tableCount: Object.keys(result.tables).length,
  ...(tenantId !== undefined ? { tenantId } : {}),
});

export async function runExport(args: ExportArgs): Promise<void> {
  if (!args.out?.trim()) throw new UsageError('--out needs a file path.');
  const loaded = await loadCliConfig(args);
  const { config } = loaded;
  const tenantId = args.tenant === undefined ? undefined : resolveTenantOption(config, args.tenant);
  const file = resolve(args.out);
  requireHubDatabase(config.db);
  const driver = await createDriver(config.db);
  let out: NewFile | undefined;
  try {
    await assertCurrentSchema(driver);
    if (tenantId !== undefined && !(await driver.unscoped().table(tenantsTable).get(tenantId))) {
      throw new CliError(`No tenant found with id "${tenantId}".`);
    }
    // Owner-only: the file holds token hashes.
    out = await createNewFile(file);
    const progress = progressReporter('Exporting');
    const result = await exportHub({
      driver,
      tables: collectTables(plugins),
      hubVersion: HUB_VERSION,
      tenantId,
      write: out.write,
      ...(progress.report ? { progress: progress.report } : {}),
    });
    progress.done();
    await out.end();
    await recordTransfer(loaded, driver, args.verbose, tenantId, {
      action: 'export.run',
      target: { kind: 'file', id: file, name: basename(file) },
      details: transferDetails(result, tenantId),
    });
    if (args.json) return printJson({ file, ...result });
    print(
      `Exported ${result.rowCount} row(s) from ${Object.keys(result.tables).length} table(s) to ${file}.`,
    );
  } catch (error) {
    await out?.discard();
    throw error;
  } finally {
    await driver.close();
  }
}

export async function runImport(args: ImportArgs): Promise<void> {
  const file = resolve(String(args.file));
  const loaded = await loadCliConfig(args);
  const input = createReadStream(file);
  await once(input, 'open').catch((error: NodeJS.ErrnoException) => {
    throw new CliError(
      error.code === 'ENOENT' ? `${file} does not exist.` : `Cannot read ${file}: ${error.message}`,
    );
  });
  // Start iterating at once: readline drops the lines (and its end) emitted before anyone
  // iterates, and the checks below take a while. The iterator buffers and pauses the file.
  const iterator = createInterface({ input, crlfDelay: Infinity })[Symbol.asyncIterator]();
  const lines: AsyncIterable<string> = { [Symbol.asyncIterator]: () => iterator };
  requireHubDatabase(loaded.config.db);
  const driver = await createDriver(loaded.config.db);
  try {
    await assertCurrentSchema(driver);
    const progress = progressReporter('Importing');
    const result = await importHub({
      driver,
      tables: collectTables(plugins),
      retired: collectMigrations(plugins).flatMap((m) => (m.dropTables ?? []).map((t) => t.name)),
      lines,
      ...(progress.report ? { progress: progress.report } : {}),
      // The rows migrate provisions (default tenant, system accounts), as migrate makes them.
      reprovision: () => withDriverHub(loaded, driver, args.verbose),
    });
    progress.done();
    await recordTransfer(loaded, driver, args.verbose, undefined, {
      action: 'import.run',
      target: { kind: 'file', id: file, name: basename(file) },
      details: transferDetails(result),
    });
    if (args.json) return printJson({ file, ...result });
    print(
      `Imported ${result.rowCount} row(s) into ${Object.keys(result.tables).length} table(s) from ${file}.`,
    );
  } finally {
    input.destroy();
    await driver.close();
  }
}
