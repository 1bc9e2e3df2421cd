/**
 * The locks that order writers: of one collection (every write that plans from a collection's
 * contents locks its row first) and of one tenant (decisions that span a tenant's whole list).
 */
import { tenantsTable } from '../../kernel/identity/tables.ts';
import { StorageError, type Store } from '../../kernel/storage/contract.ts';
import { collectionsTable } from './tables.ts';

/**
 * Loads a row that lives in a collection (folder, request, document) for a write: locks its
 * collection, then reads the row again, since it may have changed while we waited. Other
 * collections the write touches are locked too, always in id order so two writers never wait on
 * each other crosswise. A row that moved to another collection meanwhile retries the transaction.
 */
export async function loadLocked<R extends { collectionId: string }>(
  tx: Store,
  load: (tx: Store) => Promise<R>,
  alsoLock: readonly string[] = [],
): Promise<R> {
  const first = await load(tx);
  for (const id of [...new Set([first.collectionId, ...alsoLock])].sort())
    await tx.table(collectionsTable).getForUpdate(id);
  const row = await load(tx);
  if (row.collectionId !== first.collectionId)
    throw new StorageError('conflict', 'The row moved to another collection meanwhile');
  return row;
}

/**
 * Locks the tenant row for the rest of the transaction: serializes decisions that span a whole
 * tenant's list, such as the next snippet sort order or the environment inheritance graph.
 */
export async function lockTenant(tx: Store): Promise<void> {
  if (tx.tenantId) await tx.table(tenantsTable).getForUpdate(tx.tenantId);
}
