/**
 * Access and lookup helpers shared by the entity routes: collection scope (which governs folders,
 * requests and documents), container checks, transactions that survive write conflicts, and the
 * deletion notice other plugins (discussions) listen to.
 */
import { notFound } from '../../kernel/errors.ts';
import type { AuditSink } from '../../kernel/audit.ts';
import type { Clock } from '../../kernel/clock.ts';
import type { HistoryConfig } from '../../kernel/config/sections.ts';
import type { EventBus } from '../../kernel/events.ts';
import type { ReadCache } from '../../kernel/cache.ts';
import { hasAccess, noAccess } from '../../kernel/identity/access.ts';
import type { UserRow } from '../../kernel/identity/tables.ts';
import { StorageError, type Store } from '../../kernel/storage/contract.ts';
import { tenantsTable } from '../../kernel/identity/tables.ts';
import type { UsageLedger } from './history/usage.ts';
import { collectionsTable, foldersTable, type CollectionRow, type FolderRow } from './tables.ts';

/** What the route builders need from the plugin context. */
export interface EntityDeps {
  clock: Clock;
  events: EventBus;
  cache: ReadCache;
  /** The audit log (admin lock changes are recorded in their transaction). */
  audit: AuditSink;
  /** The `history` section as it is now (read per change, so a reload applies at once). */
  history: () => HistoryConfig;
  /** This process's view of the history usage (history-usage.ts). */
  usage: UsageLedger;
}

/** Event topic published after entities are removed, with every removed id by kind. */
export const ENTITIES_DELETED = 'entities.deleted';

export type DeletedKind =
  | 'collection'
  | 'environment'
  | 'snippet'
  | 'liveServer'
  | 'livePage'
  | 'folder'
  | 'request'
  | 'document'
  | 'runResult';

export interface EntitiesDeletedEvent {
  tenantId: string;
  removed: Partial<Record<DeletedKind, string[]>>;
}

/**
 * Event topic published inside the transaction that moves a saved request or document to another
 * collection, so what other plugins keep about it (a notice's collection id) moves with it.
 */
export const ITEM_MOVED = 'entities.item.moved';

export interface ItemMovedEvent {
  /** The move's transaction: handlers write through it, so they commit or fail with the move. */
  tx: Store;
  kind: 'request' | 'document';
  id: string;
  collectionId: string;
}

export function publishDeleted(
  deps: EntityDeps,
  tenantId: string,
  removed: EntitiesDeletedEvent['removed'],
): Promise<void> {
  return deps.events.publish<EntitiesDeletedEvent>(ENTITIES_DELETED, { tenantId, removed });
}

/** 403 unless the user may use this collection (admins always may). */
export function assertCollectionAccess(user: UserRow, collectionId: string): void {
  if (!hasAccess(user, 'collectionAccess', collectionId)) throw noAccess('collectionAccess');
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

/** The attribution columns of a write by `user` at `now`. */
export function touched(user: UserRow, now: string) {
  return { updatedAt: now, updatedByUserId: user.id };
}

export function created(user: UserRow, now: string) {
  return {
    createdAt: now,
    updatedAt: now,
    createdByUserId: user.id,
    updatedByUserId: user.id,
    version: 1,
  };
}
