/**
 * A versioned update: a row's change and the copy of the changed row that records it (a revision)
 * land together. Drivers run it as one statement where the database allows (PostgreSQL: the
 * UPDATE and the copy's INSERT in one statement, no transaction to open and commit), as two in a
 * transaction where it has `UPDATE … RETURNING` (SQLite), and otherwise as
 * {@link updateVersionedIn}: read and lock, update, insert, in one transaction (MySQL; Firestore
 * does the same with its own locked read of the one document).
 */
import { Buffer } from 'node:buffer';
import type { CopyOfUpdate, Store, TableApi, VersionedMatch } from './contract.ts';
import type { Table } from './table.ts';

type Row = Record<string, unknown>;

/** Whether `row` holds every value of `match`. */
export const matchesAll = (row: Row, match: VersionedMatch) =>
  Object.entries(match).every(([column, value]) =>
    value !== null && typeof value === 'object'
      ? typeof row[column] === 'number' && (row[column] as number) < value.lt
      : row[column] === value,
  );

/** The bytes of `value` as JSON text, in UTF-8: what a copy's `sizeColumn` records. */
export const jsonBytes = (value: unknown): number =>
  Buffer.byteLength(JSON.stringify(value), 'utf8');

/** The copy of `row` (as updated) that `copy` describes. */
export const copyRow = (copy: CopyOfUpdate, row: Row & { id: string; version: number }): Row => ({
  ...copy.row,
  [copy.recordColumn]: row.id,
  [copy.versionColumn]: row.version,
  [copy.snapshotColumn]: row,
  ...(copy.sizeColumn ? { [copy.sizeColumn]: jsonBytes(row) } : {}),
});

/** How a driver reaches a table's API where it writes a copy (a transaction, usually). */
export type TablesOf = (table: Table) => TableApi<Row>;

/** Inserts the copy of `row` through `tables` and tells `copy.sized` its size. */
export async function insertCopy(
  tables: TablesOf,
  copy: CopyOfUpdate,
  row: Row & { id: string; version: number },
): Promise<void> {
  const copied = copyRow(copy, row);
  await tables(copy.into).insert(copied);
  if (copy.sizeColumn) copy.sized?.(Number(copied[copy.sizeColumn]));
}

/** The portable way: in one transaction of `store`, lock and read, update, insert the copy. */
export function updateVersionedIn(
  store: Store,
  table: Table,
  id: string,
  patch: Row,
  match: VersionedMatch,
  copy: CopyOfUpdate,
): Promise<Row | null> {
  return store.transaction(async (tx) => {
    const rows = tx.table(table) as TableApi<Row>;
    const current = (await rows.getForUpdate(id)) as (Row & { version: number }) | null;
    if (!current || !matchesAll(current, match)) return null;
    const row = { ...current, ...patch, id, version: current.version + 1 };
    await rows.updateWhere({ id }, { ...patch, version: row.version });
    await insertCopy((t) => tx.table(t) as TableApi<Row>, copy, row);
    return row;
  });
}
