/**
 * Who may read a run result (and so discuss it): its creator, admins, and whoever may use the hub
 * collection its payload names.
 */
import { hasAccess } from '../../../kernel/identity/access.ts';
import type { UserRow } from '../../../kernel/identity/tables.ts';
import { COLLECTION_ACCESS } from '../kinds/index.ts';
import type { RunResultRow } from '../tables.ts';

/** Why {@link canReadRunResult} said no. */
export const RUN_RESULT_REFUSED =
  "Only the run result's creator and people with access to its collection can open it.";

/** Whether the user may read this run result. */
export function canReadRunResult(
  user: UserRow,
  row: Pick<RunResultRow, 'createdByUserId' | 'collectionId'>,
): boolean {
  if (user.role === 'admin' || row.createdByUserId === user.id) return true;
  return row.collectionId !== null && hasAccess(user, COLLECTION_ACCESS, row.collectionId);
}
