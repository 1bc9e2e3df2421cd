/**
 * Access and lookup checks shared by the entity routes: collection scope (which governs folders,
 * requests and documents), container checks, and the locks that order writers of one collection
 * or tenant.
 */
import { notFound } from '../../kernel/errors.ts';
import { hasAccess, noAccess } from '../../kernel/identity/access.ts';
import type { UserRow } from '../../kernel/identity/tables.ts';
import { StorageError, type Store } from '../../kernel/storage/contract.ts';
import { tenantsTable } from '../../kernel/identity/tables.ts';
import { COLLECTION_ACCESS } from './kinds/index.ts';
import { collectionsTable, foldersTable, type CollectionRow, type FolderRow } from './tables.ts';

/** 403 unless the user may use this collection (admins always may). */
export function assertCollectionAccess(user: UserRow, collectionId: string): void {
  if (!hasAccess(user, COLLECTION_ACCESS, collectionId)) throw noAccess(COLLECTION_ACCESS);
}

/**
 * The collection, after checking access first (403) and existence second (404). Inside a
 * transaction the collection row stays locked until it ends: every write that plans from the
 * collection's contents (sort orders, moves, cascades) locks it first, so concurrent writers to one
 * collection take turns instead of acting on stale reads.
 */
export async function requireCollection(
  store: Store,
  user: UserRow,
  collectionId: string,
): Promise<CollectionRow> {
  assertCollectionAccess(user, collectionId);
  return existingCollection(store, collectionId);
}

/**
 * {@link requireCollection} without the access check, for callers that checked it already (a
 * grouped create checks each create's caller before it joins the batch): 404 when missing, and
 * locked inside a transaction.
 */
export async function existingCollection(
  store: Store,
  collectionId: string,
): Promise<CollectionRow> {
  const collection = await store.table(collectionsTable).getForUpdate(collectionId);
  if (!collection) throw notFound('Collection not found');
  return collection;
}

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

/**
 * Checks that `folderId` names a folder of this collection (null is the root and always valid).
 * A folder of another collection is reported exactly like a missing one.
 */
export async function requireFolder(
  store: Store,
  collectionId: string,
  folderId: string | null,
  message = 'Folder not found',
): Promise<FolderRow | null> {
  if (folderId === null) return null;
  const folder = await store.table(foldersTable).get(folderId);
  if (!folder || folder.collectionId !== collectionId) throw notFound(message);
  return folder;
}
