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
  // Take the iterator before the first await: a readline interface drops the lines (and its end)
  // it emits while nobody iterates, and the checks below take a while.
  const iterator = options.lines[Symbol.asyncIterator]();
  const lines: AsyncIterable<string> = { [Symbol.asyncIterator]: () => iterator };
  await assertImportable(options.driver, options.tables);
  const run = new ImportRun(options);
  try {
    for await (const raw of lines) {
      run.lineNo += 1;
      const line = raw.trim();
      if (line === '') continue;
      if (run.header === null) await run.readHeader(line);
      else await run.readLine(line);
    }
    return run.finish();
  } catch (error) {
    // Leave the database as migrate left it, so the operator can fix the cause and run import again.
    if (run.cleared) {
      await clearAll(options.driver, options.tables);
      await options.reprovision();
    }
    throw error;
  }
}

type Header = { format?: unknown; version?: unknown } | null;

/** One import's way through the file: where it is, the rows batched, what it has written. */
class ImportRun {
  readonly options: ImportOptions;
  readonly byName: Map<string, Table>;
  readonly batchSize: number;
  readonly retired: Set<string>;
  lineNo = 0;
  header: Header = null;
  table: Table | null = null;
  /** Inside a retired or unexported table's rows, read past (and counted, for the file's total). */
  skipping = false;
  skipped = 0;
  batch: Row[] = [];
  readonly counts: Record<string, number> = {};
  rowCount = 0;
  declared: number | null = null;
  cleared = false;

  constructor(options: ImportOptions) {
    this.options = options;
    this.byName = new Map(options.tables.map((table) => [table.name, table]));
    this.batchSize = options.batchSize ?? 200;
    this.retired = new Set(options.retired ?? []);
  }

  /** Writes the batched rows in one transaction. */
  async flush(): Promise<void> {
    if (!this.table || this.batch.length === 0) return;
    const rows = this.batch;
    const target = this.table;
    this.batch = [];
    await this.options.driver.unscoped().transaction(async (tx) => {
      for (const row of rows) await tx.table(target).insert(row);
    });
    this.counts[target.name] = (this.counts[target.name] ?? 0) + rows.length;
    this.rowCount += rows.length;
    this.options.progress?.(target.name, this.counts[target.name]!);
  }

  parse(text: string): unknown {
    try {
      return JSON.parse(text);
    } catch {
      throw new ImportFormatError(
        this.lineNo,
        'not the layout "workspace-hub export" writes (one row per line). Export again rather than reformatting the file.',
      );
    }
  }

  /** The file's first line: its format and version; once they are right, the database is cleared. */
  async readHeader(line: string): Promise<void> {
    if (!line.endsWith(',"tables":['))
      throw new ImportFormatError(this.lineNo, 'this is not a workspace-hub export file.');
    const parsed = this.parse(`${line.slice(0, -',"tables":['.length)}}`) as Header;
    if (parsed?.format !== EXPORT_FORMAT)
      throw new ImportFormatError(this.lineNo, 'this is not a workspace-hub export file.');
    if (parsed.version !== EXPORT_VERSION)
      throw new ImportFormatError(
        this.lineNo,
        `export format version ${String(parsed.version)} is not supported (this hub reads version ${EXPORT_VERSION}).`,
      );
    this.header = parsed;
    // Migrate's own rows are replaced by the file's (same ids as the source hub), so tokens and
    // system accounts keep their ids. Checked empty above; cleared only once the file looks right.
    await clearAll(this.options.driver, this.options.tables);
    this.cleared = true;
  }

  /** A line after the header: a table's start or end, the file's end, or a row. */
  async readLine(line: string): Promise<void> {
    const start = /^,?\{"table":("(?:[^"\\]|\\.)*"),"rows":\[(\]\},?)?$/.exec(line);
    if (start) return this.startTable(start[1]!, Boolean(start[2]));
    if (line === ']}' || line === ']},') {
      await this.flush();
      this.table = null;
      this.skipping = false;
      return;
    }
    const end = /^\],"rowCount":(\d+)\}$/.exec(line);
    if (end) {
      await this.flush();
      this.declared = Number(end[1]);
      return;
    }
    if (this.skipping) {
      this.skipped += 1;
      return;
    }
    await this.addRow(line);
  }

  /** A table's first line (`empty`: its rows' closing bracket is on it too). */
  async startTable(quotedName: string, empty: boolean): Promise<void> {
    await this.flush();
    const name = this.parse(quotedName) as string;
    const next = this.byName.get(name);
    // A table a migration dropped, or one never exported (an older hub's export has it).
    if ((!next && this.retired.has(name)) || next?.exported === false) {
      this.table = null;
      this.skipping = !empty;
      return;
    }
    if (!next)
      throw new ImportFormatError(
        this.lineNo,
        `table "${name}" is not declared by this hub's kernel or plugins (is a plugin missing, or is the hub older than the export?).`,
      );
    this.table = empty ? null : next;
    this.counts[name] ??= 0;
  }

  async addRow(line: string): Promise<void> {
    const table = this.table;
    if (!table) throw new ImportFormatError(this.lineNo, 'a row outside of a table.');
    const row = this.parse(line.endsWith(',') ? line.slice(0, -1) : line) as Row;
    if (typeof row !== 'object' || row === null || typeof row.id !== 'string')
      throw new ImportFormatError(this.lineNo, 'a row without an id.');
    if (table.tenantScoped && typeof row.tenantId !== 'string')
      throw new ImportFormatError(this.lineNo, `a ${table.name} row without tenantId.`);
    this.batch.push(row);
    if (this.batch.length >= this.batchSize) await this.flush();
  }

  /** The file has been read: it must have been whole. */
  finish(): { rowCount: number; tables: Record<string, number> } {
    if (this.header === null) throw new ImportFormatError(this.lineNo, 'the file is empty.');
    if (this.declared === null)
      throw new ImportFormatError(
        this.lineNo,
        'the file ends early (no closing rowCount); it was cut off while being written or copied.',
      );
    if (this.declared !== this.rowCount + this.skipped)
      throw new ImportFormatError(
        this.lineNo,
        `the file declares ${this.declared} rows but holds ${this.rowCount + this.skipped}.`,
      );
    return { rowCount: this.rowCount, tables: this.counts };
  }
}
