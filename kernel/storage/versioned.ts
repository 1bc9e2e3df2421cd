/**
 * A versioned update: a row's change and the copy of the changed row that records it (a revision)
 * land together. Drivers run it as one statement where the database allows (PostgreSQL: the
 * UPDATE and the copy's INSERT in one statement, no transaction to open and commit), as two in a
 * transaction where it has `UPDATE … RETURNING` (SQLite), and otherwise as
 * {@link updateVersionedIn}: read and lock, update, insert, in one transaction (MySQL; Firestore
 * does the same with its own locked read of the one document).
 */
import type { CopyOfUpdate, Store, TableApi, VersionedMatch } from './contract.ts';
import type { Table } from './table.ts';

type Row = Record<string, unknown>;

/** Whether `row` holds every value of `match`. */
export const matchesAll = (row: Row, match: VersionedMatch) =>
  Object.entries(match).every(([column, value]) => row[column] === value);

/** The copy of `row` (as updated) that `copy` describes. */
export const copyRow = (copy: CopyOfUpdate, row: Row & { id: string; version: number }): Row => ({
  ...copy.row,
  [copy.recordColumn]: row.id,
  [copy.versionColumn]: row.version,
  [copy.snapshotColumn]: row,
});

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
    await (tx.table(copy.into) as TableApi<Row>).insert(copyRow(copy, row));
    return row;
  });
}
