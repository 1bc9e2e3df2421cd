/**
 * A collection's folders as a tree: loading them, a folder's subtree, and the two changes that
 * take a whole subtree along (deleting a folder, moving it under another parent).
 */
import { badRequest, notFound } from '../../../kernel/errors.ts';
import type { UserRow } from '../../../kernel/identity/tables.ts';
import type { Store } from '../../../kernel/storage/contract.ts';
import { assertCollectionAccess } from '../access.ts';
import type { EntityDeps } from '../deps.ts';
import {
  checkVersion,
  expectedVersion,
  recordChanges,
  type VersionedRow,
} from '../history/record.ts';
import type { HistoryKind } from '../kinds/index.ts';
import { loadLocked } from '../locks.ts';
import { addSortOrders, planMove } from '../ordering.ts';
import { toFolderRecord } from '../records.ts';
import { foldersTable, type FolderRow } from '../tables.ts';
import { deleteParts, readItems } from './contents.ts';
import { stampMoved } from './moved.ts';

export const FOLDER_NOT_FOUND = 'Folder not found';
export const PARENT_NOT_FOUND = 'Parent folder not found in collection';

/** The ids of `rootId` and every folder below it. */
export function subtreeIds(folders: readonly FolderRow[], rootId: string): Set<string> {
  const ids = new Set([rootId]);
  // Repeat until nothing new joins; each pass adds at least one level.
  for (let grew = true; grew;) {
    grew = false;
    for (const folder of folders) {
      if (folder.parentFolderId !== null && ids.has(folder.parentFolderId) && !ids.has(folder.id)) {
        ids.add(folder.id);
        grew = true;
      }
    }
  }
  return ids;
}

export async function loadFolder(store: Store, id: string): Promise<FolderRow> {
  const folder = await store.table(foldersTable).get(id);
  if (!folder) throw notFound(FOLDER_NOT_FOUND);
  return folder;
}

export async function loadFolderForUpdate(tx: Store, id: string): Promise<FolderRow> {
  const folder = await tx.table(foldersTable).getForUpdate(id);
  if (!folder) throw notFound(FOLDER_NOT_FOUND);
  return folder;
}

export const foldersOf = (store: Store, collectionId: string) =>
  store.table(foldersTable).find({ where: { collectionId } });

/**
 * Deletes folder `id` with its subfolders and everything in them, each with a `deleted` revision
 * caused by the folder (so restoring the folder brings them back); returns what was removed.
 */
export async function removeFolderTree(
  tx: Store,
  deps: EntityDeps,
  user: UserRow,
  id: string,
  expected: ReturnType<typeof expectedVersion>,
) {
  await loadLocked(tx, (t) => loadFolder(t, id));
  // Locked after its collection, as a rename locks only the folder's row.
  const folder = await loadFolderForUpdate(tx, id);
  assertCollectionAccess(user, folder.collectionId);
  checkVersion(expected, folder, () => toFolderRecord(folder));
  const all = await foldersOf(tx, folder.collectionId);
  const folderIds = [...subtreeIds(all, id)];
  // The folders, then what is in them (reads first); removed the other way round.
  const parts = [
    {
      kind: 'folder' as const,
      table: foldersTable,
      rows: all.filter((f) => folderIds.includes(f.id)),
      where: { id: { in: folderIds } },
    },
    ...(await readItems(tx, { folderId: { in: folderIds } })),
  ];
  const removed = await deleteParts(tx, parts);
  // The folder's own revision, then its subfolders' and items', caused by it (restored with it).
  const at = deps.clock.iso();
  const gone = (kind: HistoryKind, row: VersionedRow) => ({
    kind,
    row: { ...row, version: row.version + 1 },
    action: 'deleted' as const,
    actorId: user.id,
    at,
    cause: row.id === id ? null : id,
  });
  await recordChanges(tx, deps, [
    gone('folder', folder),
    ...parts.flatMap((part) =>
      part.rows.filter((row) => row.id !== id).map((row) => gone(part.kind, row)),
    ),
  ]);
  return removed;
}

/** Moves folder `id` under `target` (null: the collection's root) at `index` (omitted: last). */
export async function moveFolder(
  tx: Store,
  deps: EntityDeps,
  user: UserRow,
  id: string,
  target: string | null,
  index: number | undefined,
): Promise<FolderRow> {
  await loadLocked(tx, (t) => loadFolder(t, id));
  // Locked after its collection, as a rename locks only the folder's row.
  const folder = await loadFolderForUpdate(tx, id);
  assertCollectionAccess(user, folder.collectionId);
  const all = await foldersOf(tx, folder.collectionId);
  if (target !== null) {
    if (!all.some((f) => f.id === target)) throw notFound(PARENT_NOT_FOUND);
    if (subtreeIds(all, id).has(target))
      throw badRequest(
        'parentFolderId: A folder cannot be moved into itself or one of its descendants.',
      );
  }
  const source = folder.parentFolderId;
  const siblingsOf = (parent: string | null) => all.filter((f) => f.parentFolderId === parent);
  const patches = new Map<string, Partial<FolderRow>>();
  addSortOrders(
    patches,
    planMove(folder, siblingsOf(source), source === target ? null : siblingsOf(target), index),
  );
  return stampMoved(tx, deps, {
    kind: 'folder',
    table: tx.table(foldersTable),
    row: folder,
    patches,
    placement: { parentFolderId: target },
    left: source !== target,
    user,
  });
}
