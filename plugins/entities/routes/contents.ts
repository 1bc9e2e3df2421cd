/**
 * What a collection holds, as the registry places it: folders, and the items of every item kind.
 * A collection's or a folder's deletion removes what is inside it, each removed record's `deleted`
 * revision caused by that collection or folder, so its restore brings them back
 * (history/restore.ts).
 */
import type { Store, Where } from '../../../kernel/storage/contract.ts';
import type { Table } from '../../../kernel/storage/table.ts';
import type { VersionedRow } from '../history/record.ts';
import { FOLDER_KIND, ITEM_KINDS, type HistoryKind, type KindName } from '../kinds/index.ts';

/** The ids of every removed record, by kind (`entities.deleted`). */
export type Removed = Partial<Record<KindName, string[]>>;

/** Records `deleted` revisions of rows a cascade removes (before their removal, as they were). */
export type DeletedRecorder = (kind: HistoryKind, rows: readonly VersionedRow[]) => Promise<void>;

/** Rows of one kind about to go with their container: the kind, which rows, and how to select them. */
export interface Part {
  kind: HistoryKind;
  table: Table;
  rows: VersionedRow[];
  where: Where<any>;
}

/** The items of every item kind that `where` selects (reads only). */
export async function readItems(tx: Store, where: Where<any>): Promise<Part[]> {
  const parts: Part[] = [];
  for (const kind of ITEM_KINDS)
    parts.push({
      kind: kind.name,
      table: kind.table,
      rows: await tx.table(kind.table).find({ where }),
      where,
    });
  return parts;
}

/** Deletes the parts' rows, the last part first (items before their folders); their ids by kind. */
export async function deleteParts(tx: Store, parts: readonly Part[]): Promise<Removed> {
  for (const part of [...parts].reverse()) await tx.table(part.table).deleteWhere(part.where);
  return Object.fromEntries(parts.map((part) => [part.kind, part.rows.map((row) => row.id)]));
}

/**
 * Removes every folder and item of a collection, recording their `deleted` revisions; returns
 * their ids.
 */
export async function removeCollectionContents(
  tx: Store,
  collectionId: string,
  deleted: DeletedRecorder,
): Promise<Removed> {
  const where = { collectionId };
  // Reads first, then writes (the storage contract's rule for transactions).
  const folders = await tx.table(FOLDER_KIND.table).find({ where });
  const parts = [
    { kind: FOLDER_KIND.name, table: FOLDER_KIND.table, rows: folders, where },
    ...(await readItems(tx, where)),
  ];
  const removed = await deleteParts(tx, parts);
  for (const part of parts) await deleted(part.kind, part.rows);
  return removed;
}
