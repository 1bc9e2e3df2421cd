/**
 * Moving a hub between databases: `workspace-hub export` and `workspace-hub import`.
 *
 * The file is one JSON document, laid out one row per line so both sides stream it (the export
 * never holds more than a page of rows, the import never more than a batch):
 *
 *   {"format":"workspace-hub-export","version":1,"hubVersion":"…","exportedAt":"…","tenant":null,"tables":[
 *   {"table":"tenants","rows":[
 *   {"id":"__default__",…},
 *   {"id":"acme",…}
 *   ]},
 *   …
 *   ],"rowCount":1234}
 *
 * Every table the kernel and the plugins declare is exported through the storage contract, so a
 * new plugin's tables travel without changes here — except those declared `exported: false` (a
 * signing key the target makes anew), which an import reads past. Rows keep every column as the contract returns
 * it (ids, ISO timestamps, parsed JSON), plus `tenantId` on tenant-scoped tables; binary data is
 * already stored as base64 text (avatars), so the file is plain JSON. The migration record is not
 * exported: the target is prepared by `workspace-hub migrate` of the same version.
 *
 * This file holds the format and the export; transfer-import.ts reads a file back.
 */
import type { Store, StorageDriver } from './contract.ts';
import type { Table } from './table.ts';

export const EXPORT_FORMAT = 'workspace-hub-export';
export const EXPORT_VERSION = 1;
const PAGE = 500;

export type Row = Record<string, unknown>;

export interface TransferProgress {
  (table: string, rows: number): void;
}

export interface ExportOptions {
  driver: StorageDriver;
  tables: readonly Table[];
  hubVersion: string;
  /** Only this tenant (its row, and its rows of every tenant-scoped table); else everything. */
  tenantId?: string | undefined;
  /** Receives the document piece by piece; await it for back-pressure. */
  write(chunk: string): Promise<void>;
  progress?: TransferProgress;
  now?: () => Date;
}

/** Every row of `table` visible to `store`, a page at a time in id order. */
async function* pages(store: Store, table: Table): AsyncGenerator<Row[]> {
  const api = store.table(table);
  let after: Row | undefined;
  for (;;) {
    const rows = (await api.find({
      orderBy: [['id', 'asc']],
      limit: PAGE,
      ...(after ? { after } : {}),
    })) as Row[];
    if (rows.length === 0) return;
    yield rows;
    if (rows.length < PAGE) return;
    after = { id: rows[rows.length - 1]!.id };
  }
}

export async function exportHub(
  options: ExportOptions,
): Promise<{ rowCount: number; tables: Record<string, number> }> {
  const { driver, tenantId } = options;
  const header = {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    hubVersion: options.hubVersion,
    exportedAt: (options.now?.() ?? new Date()).toISOString(),
    tenant: tenantId ?? null,
  };
  await options.write(`${JSON.stringify(header).slice(0, -1)},"tables":[\n`);
  const counts: Record<string, number> = {};
  let rowCount = 0;
  let firstTable = true;
  for (const table of options.tables) {
    if (!table.exported) continue;
    // One tenant: its own row of `tenants`, its rows of tenant-scoped tables, no other global rows.
    if (tenantId !== undefined && !table.tenantScoped && table.name !== 'tenants') continue;
    const store =
      tenantId !== undefined && table.tenantScoped ? driver.forTenant(tenantId) : driver.unscoped();
    await options.write(
      `${firstTable ? '' : ',\n'}{"table":${JSON.stringify(table.name)},"rows":[`,
    );
    firstTable = false;
    let count = 0;
    for await (const rows of pages(store, table)) {
      const lines: string[] = [];
      for (const row of rows) {
        if (tenantId !== undefined && table.name === 'tenants' && row.id !== tenantId) continue;
        const full = tenantId !== undefined && table.tenantScoped ? { ...row, tenantId } : row;
        lines.push(`${count === 0 && lines.length === 0 ? '\n' : ',\n'}${JSON.stringify(full)}`);
        count += 1;
      }
      if (lines.length > 0) await options.write(lines.join(''));
      options.progress?.(table.name, count);
    }
    await options.write(count === 0 ? ']}' : '\n]}');
    counts[table.name] = count;
    rowCount += count;
  }
  await options.write(`\n],"rowCount":${rowCount}}\n`);
  return { rowCount, tables: counts };
}
