/**
 * The kinds that keep history, as the revision routes (revisions.ts, restore.ts) see them: path
 * prefix, table, record, and how access is decided — an access list for the top-level kinds, the
 * collection for folders, saved requests and documents (for a deleted record, the collection it
 * was in when deleted).
 */
import { hasAccess, noAccess, type EntityAccessField } from '../../kernel/identity/access.ts';
import type { UserRow } from '../../kernel/identity/tables.ts';
import type { Columns, Table } from '../../kernel/storage/table.ts';
import { assertCollectionAccess } from './access.ts';
import type { VersionedRow } from './history.ts';
import type { ItemKind } from './item-kind.ts';
import { toFolderRecord } from './records.ts';
import { foldersTable, type HistoryKind, type RevisionRow } from './tables.ts';
import { historyKindOf, type AnyTopLevelKind } from './top-level-kind.ts';

/** How a record sits in its container: what a restore keeps, and re-checks on undelete. */
export type Placement = 'item' | 'folder' | 'top-level';

export interface HistorySubject {
  kind: HistoryKind;
  /** Path prefix, e.g. `requests`. */
  prefix: string;
  noun: string;
  notFound: string;
  table: Table<Columns>;
  toRecord(row: any): object;
  placement: Placement;
  /** The access-list field of a top-level kind. */
  field?: EntityAccessField;
  /** Only the creator may delete one through the data API (collections). */
  creatorOnlyDelete?: boolean;
}

export function historySubjects(
  topLevel: readonly AnyTopLevelKind[],
  items: readonly ItemKind[],
): HistorySubject[] {
  return [
    ...items.map((kind): HistorySubject => ({
      kind: kind.deletedKind,
      prefix: kind.segment,
      noun: kind.noun,
      notFound: kind.notFound,
      table: kind.table,
      toRecord: kind.toRecord,
      placement: 'item',
    })),
    {
      kind: 'folder',
      prefix: 'folders',
      noun: 'folder',
      notFound: 'Folder not found',
      table: foldersTable,
      toRecord: toFolderRecord,
      placement: 'folder',
    },
    ...topLevel.map((kind): HistorySubject => ({
      kind: historyKindOf(kind),
      prefix: kind.path.slice(1),
      noun: kind.noun,
      notFound: kind.notFound,
      table: kind.table,
      toRecord: kind.toRecord,
      placement: 'top-level',
      field: kind.field,
      creatorOnlyDelete: kind.creatorOnlyDelete ?? false,
    })),
  ];
}

/**
 * Whether the user may see this revision: a revision of a folder, saved request or document is
 * judged by the collection it was written in (a record moved from another collection keeps the
 * revisions written there out of reach of who cannot use that one); a top-level record's by the
 * record, checked already.
 */
export function mayReadRevision(
  user: UserRow,
  subject: HistorySubject,
  revision: Pick<RevisionRow, 'snapshot'>,
): boolean {
  if (subject.field) return true;
  return hasAccess(user, 'collectionAccess', String(revision.snapshot['collectionId'] ?? ''));
}

/** 403 unless the user may use the record (`row`: live, or as last recorded). */
export function assertSubjectAccess(
  user: UserRow,
  subject: HistorySubject,
  id: string,
  row: Partial<VersionedRow> | null,
): void {
  if (subject.field) {
    if (!hasAccess(user, subject.field, id)) throw noAccess(subject.field);
    return;
  }
  assertCollectionAccess(user, String(row?.collectionId ?? ''));
}
