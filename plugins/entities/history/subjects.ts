/**
 * The kinds that keep history, as the revision routes (revisions.ts, restore.ts) see them: the
 * registry's entries (kinds/index.ts) with `history`, and how access is decided — an access list
 * for the top-level kinds, the collection for folders, saved requests and documents (for a
 * deleted record, the collection it was in when deleted).
 */
import { hasAccess, noAccess } from '../../../kernel/identity/access.ts';
import type { UserRow } from '../../../kernel/identity/tables.ts';
import { assertCollectionAccess } from '../access.ts';
import { COLLECTION_ACCESS, HISTORY_KINDS, type HistoryKind, type Kind } from '../kinds/index.ts';
import type { VersionedRow } from './record.ts';
import type { RevisionRow } from './tables.ts';

/** A kind that keeps history. */
export type HistorySubject = Kind<HistoryKind>;

/** Every kind that keeps history, in the order its routes are mounted. */
export const historySubjects: readonly HistorySubject[] = HISTORY_KINDS;

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
  return hasAccess(user, COLLECTION_ACCESS, String(revision.snapshot['collectionId'] ?? ''));
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
