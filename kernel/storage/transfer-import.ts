/**
 * `workspace-hub import`: reads a file `workspace-hub export` wrote (the format is described in
 * transfer.ts) into a database that `workspace-hub migrate` has just prepared, a batch of rows per
 * transaction. A failed import leaves the database as migrate left it.
 */
import type { StorageDriver } from './contract.ts';
import type { Table } from './table.ts';
import { EXPORT_FORMAT, EXPORT_VERSION, type Row, type TransferProgress } from './transfer.ts';

/** The import refuses a database that holds anything beyond what `migrate` provisions. */
export class ImportRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImportRefusedError';
  }
}

/** A malformed or foreign file. */
export class ImportFormatError extends Error {
  constructor(line: number, message: string) {
    super(`Import file, line ${line}: ${message}`);
    this.name = 'ImportFormatError';
  }
}

export interface ImportOptions {
  driver: StorageDriver;
  tables: readonly Table[];
  /** The file's lines, in order (e.g. from `readline`). */
  lines: AsyncIterable<string>;
  progress?: TransferProgress;
  /**
   * Tables a migration dropped (`dropTables`): an older export may still hold them, and their rows
   * are skipped. @default []
   */
  retired?: readonly string[];
  /** Rows per transaction. @default 200 (Firestore allows 500 writes, unique keys included). */
  batchSize?: number;
  /** Restores what `migrate` provisions after a failed import has been cleared (see cli). */
  reprovision(): Promise<void>;
}

/**
 * What a freshly migrated database may hold: `tenants` rows and each tenant's internal system
 * account (`users` with `system: true`). Anything else — another user, a token, any plugin row,
 * hub state such as "first admin created" — means the database is in use, and import refuses it.
 */
export async function assertImportable(
  driver: StorageDriver,
  tables: readonly Table[],
): Promise<void> {
  const store = driver.unscoped();
  const found: string[] = [];
  for (const table of tables) {
    if (table.name === 'tenants') continue;
    const where = table.name === 'users' ? { system: false } : {};
    const count = await store.table(table).count(where);
    if (count > 0)
      found.push(
        `${table.name}: ${count} row(s)${table.name === 'users' ? ' besides the system accounts' : ''}`,
      );
  }
  if (found.length > 0) {
    throw new ImportRefusedError(
      `The target database already holds data (${found.join(', ')}). Import only into a new, empty database that "workspace-hub migrate" has just prepared; nothing was changed.`,
    );
  }
}

/** Deletes every row of every declared table (a failed import's clean-up; the database was empty). */
async function clearAll(driver: StorageDriver, tables: readonly Table[]): Promise<void> {
  const store = driver.unscoped();
  for (const table of [...tables].reverse()) {
    for (;;) {
      // 100 at a time: with their unique keys that stays under Firestore's 500 writes per commit.
      const rows = (await store.table(table).find({ limit: 100 })) as Row[];
      if (rows.length === 0) break;
      await store.table(table).deleteWhere({ id: { in: rows.map((row) => row.id as string) } });
    }
  }
}

export async function importHub(
  options: ImportOptions,
): Promise<{ rowCount: number; tables: Record<string, number> }> {
  const { driver } = options;
  const byName = new Map(options.tables.map((table) => [table.name, table]));
  const batchSize = options.batchSize ?? 200;
  // Take the iterator before the first await: a readline interface drops the lines (and its end)
  // it emits while nobody iterates, and the checks below take a while.
  const iterator = options.lines[Symbol.asyncIterator]();
  const lines: AsyncIterable<string> = { [Symbol.asyncIterator]: () => iterator };
  await assertImportable(driver, options.tables);

  let lineNo = 0;
  type Header = { format?: unknown; version?: unknown } | null;
  let header: Header = null;
  let table: Table | null = null;
  /** Inside a retired or unexported table's rows, read past (and counted, for the file's total). */
  let skipping = false;
  let skipped = 0;
  const retired = new Set(options.retired ?? []);
  let batch: Row[] = [];
  const counts: Record<string, number> = {};
  let rowCount = 0;
  let declared: number | null = null;
  let cleared = false;

  const flush = async () => {
    if (!table || batch.length === 0) return;
    const rows = batch;
    const target = table;
    batch = [];
    await driver.unscoped().transaction(async (tx) => {
      for (const row of rows) await tx.table(target).insert(row);
    });
    counts[target.name] = (counts[target.name] ?? 0) + rows.length;
    rowCount += rows.length;
    options.progress?.(target.name, counts[target.name]!);
  };

  const parse = (text: string): unknown => {
    try {
      return JSON.parse(text);
    } catch {
      throw new ImportFormatError(
        lineNo,
        'not the layout "workspace-hub export" writes (one row per line). Export again rather than reformatting the file.',
      );
    }
  };

  try {
    for await (const raw of lines) {
      lineNo += 1;
      const line = raw.trim();
      if (line === '') continue;
      if (header === null) {
        if (!line.endsWith(',"tables":['))
          throw new ImportFormatError(lineNo, 'this is not a workspace-hub export file.');
        const parsed = parse(`${line.slice(0, -',"tables":['.length)}}`) as Header;
        if (parsed?.format !== EXPORT_FORMAT)
          throw new ImportFormatError(lineNo, 'this is not a workspace-hub export file.');
        if (parsed.version !== EXPORT_VERSION)
          throw new ImportFormatError(
            lineNo,
            `export format version ${String(parsed.version)} is not supported (this hub reads version ${EXPORT_VERSION}).`,
          );
        header = parsed;
        // Migrate's own rows are replaced by the file's (same ids as the source hub), so tokens and
        // system accounts keep their ids. Checked empty above; cleared only once the file looks right.
        await clearAll(driver, options.tables);
        cleared = true;
        continue;
      }
      const start = /^,?\{"table":("(?:[^"\\]|\\.)*"),"rows":\[(\]\},?)?$/.exec(line);
      if (start) {
        await flush();
        const name = parse(start[1]!) as string;
        const next = byName.get(name);
        // A table a migration dropped, or one never exported (an older hub's export has it).
        if ((!next && retired.has(name)) || next?.exported === false) {
          table = null;
          skipping = !start[2];
          continue;
        }
        if (!next)
          throw new ImportFormatError(
            lineNo,
            `table "${name}" is not declared by this hub's kernel or plugins (is a plugin missing, or is the hub older than the export?).`,
          );
        table = start[2] ? null : next;
        counts[name] ??= 0;
        continue;
      }
      if (line === ']}' || line === ']},') {
        await flush();
        table = null;
        skipping = false;
        continue;
      }
      const end = /^\],"rowCount":(\d+)\}$/.exec(line);
      if (end) {
        await flush();
        declared = Number(end[1]);
        continue;
      }
      if (skipping) {
        skipped += 1;
        continue;
      }
      if (!table) throw new ImportFormatError(lineNo, 'a row outside of a table.');
      const row = parse(line.endsWith(',') ? line.slice(0, -1) : line) as Row;
      if (typeof row !== 'object' || row === null || typeof row.id !== 'string')
        throw new ImportFormatError(lineNo, 'a row without an id.');
      if (table.tenantScoped && typeof row.tenantId !== 'string')
        throw new ImportFormatError(lineNo, `a ${table.name} row without tenantId.`);
      batch.push(row);
      if (batch.length >= batchSize) await flush();
    }
    if (header === null) throw new ImportFormatError(lineNo, 'the file is empty.');
    if (declared === null)
      throw new ImportFormatError(
        lineNo,
        'the file ends early (no closing rowCount); it was cut off while being written or copied.',
      );
    if (declared !== rowCount + skipped)
      throw new ImportFormatError(
        lineNo,
        `the file declares ${declared} rows but holds ${rowCount + skipped}.`,
      );
    return { rowCount, tables: counts };
  } catch (error) {
    // Leave the database as migrate left it, so the operator can fix the cause and run import again.
    if (cleared) {
      await clearAll(driver, options.tables);
      await options.reprovision();
    }
    throw error;
  }
}
