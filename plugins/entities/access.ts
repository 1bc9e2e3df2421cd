/**
 * Access and lookup checks shared by the entity routes: collection scope (which governs folders,
 * requests and documents) and container checks (the locks that order writers are in locks.ts).
 */
import { notFound } from '../../kernel/errors.ts';
import { hasAccess, noAccess } from '../../kernel/identity/access.ts';
import type { UserRow } from '../../kernel/identity/tables.ts';
import type { Store } from '../../kernel/storage/contract.ts';
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
