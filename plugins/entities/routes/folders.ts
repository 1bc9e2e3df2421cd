/**
 * Folders inside a collection, nested through `parentFolderId` (null = the collection root).
 * Deleting a folder removes its whole subtree with the requests and documents in it; a folder can
 * be moved under another parent but never into itself or its own subtree. Access is the
 * collection's.
 */
import { z } from 'zod';
import type { Hono } from 'hono';
import { badRequest, notFound } from '../../../kernel/errors.ts';
import { newId } from '../../../kernel/identity/secrets.ts';
import type { KernelEnv } from '../../../kernel/plugin.ts';
import type { Store } from '../../../kernel/storage/contract.ts';
import { assertCollectionAccess, requireCollection } from '../access.ts';
import { loadLocked } from '../locks.ts';
import { created, touched } from '../attribution.ts';
import type { EntityDeps } from '../deps.ts';
import { publishDeleted } from '../events.ts';
import {
  addSortOrders,
  nextSortOrder,
  planMove,
  planReorder,
  renumber,
  sortSiblings,
  writeChanges,
} from '../ordering.ts';
import {
  answerRecord,
  checkVersion,
  expectedVersion,
  recordChange,
  recordChanges,
  type VersionedRow,
} from '../history/record.ts';
import { toFolderRecord } from '../records.ts';
import { definedOnly, idSchema, listOf, markerSchema, nameSchema } from '../schemas.ts';
import { deleteParts, readItems } from './contents.ts';
import { stampMoved } from './moved.ts';
import type { HistoryKind } from '../kinds/index.ts';
import { collectionsTable, foldersTable, type FolderRow } from '../tables.ts';
import { pathId } from '../../../kernel/http/params.ts';
import { jsonBody } from '../../../kernel/http/validate.ts';

const createBody = z.object({
  name: nameSchema,
  parentFolderId: idSchema.nullable().optional(),
  marker: markerSchema.optional(),
});
// The spec's body is {name}: a rename without a name is a 400 naming the field, not a silent no-op.
const renameBody = z.object({ name: nameSchema, marker: markerSchema.optional() });
const moveBody = z.object({
  parentFolderId: idSchema.nullable(),
  /** Position among the new siblings; omitted means last. */
  sortOrder: z.number().int().min(0).optional(),
});
const reorderBody = z.object({
  orderedFolderIds: listOf(idSchema),
  /** The desktop names the parent; when omitted it is the listed folders' common parent. */
  parentFolderId: idSchema.nullable().optional(),
});

const FOLDER_NOT_FOUND = 'Folder not found';
const PARENT_NOT_FOUND = 'Parent folder not found in collection';

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

async function loadFolder(store: Store, id: string): Promise<FolderRow> {
  const folder = await store.table(foldersTable).get(id);
  if (!folder) throw notFound(FOLDER_NOT_FOUND);
  return folder;
}

async function loadFolderForUpdate(tx: Store, id: string): Promise<FolderRow> {
  const folder = await tx.table(foldersTable).getForUpdate(id);
  if (!folder) throw notFound(FOLDER_NOT_FOUND);
  return folder;
}

const foldersOf = (store: Store, collectionId: string) =>
  store.table(foldersTable).find({ where: { collectionId } });

export function folderRoutes(app: Hono<KernelEnv>, deps: EntityDeps): void {
  app.get('/collections/:collectionId/folders', async (c) => {
    const collectionId = pathId(c, 'collectionId', 'Collection not found');
    await requireCollection(c.get('store'), c.get('auth').user, collectionId);
    const folders = sortSiblings(await foldersOf(c.get('store'), collectionId));
    return c.json({ folders: folders.map(toFolderRecord) });
  });

  app.post('/collections/:collectionId/folders', jsonBody(createBody), async (c) => {
    const collectionId = pathId(c, 'collectionId', 'Collection not found');
    const user = c.get('auth').user;
    const input = c.req.valid('json');
    const folder = await c.get('store').transaction(async (tx) => {
      await requireCollection(tx, user, collectionId);
      const parentFolderId = input.parentFolderId ?? null;
      const all = await foldersOf(tx, collectionId);
      if (parentFolderId !== null && !all.some((f) => f.id === parentFolderId))
        throw notFound(PARENT_NOT_FOUND);
      const siblings = all.filter((f) => f.parentFolderId === parentFolderId);
      const now = deps.clock.iso();
      const row = await tx.table(foldersTable).insert({
        id: newId(),
        collectionId,
        parentFolderId,
        name: input.name,
        sortOrder: nextSortOrder(siblings),
        marker: input.marker ?? null,
        ...created(user, now),
      });
      await recordChange(tx, deps, {
        kind: 'folder',
        row,
        action: 'created',
        actorId: user.id,
        at: now,
      });
      return row;
    });
    return answerRecord(c, toFolderRecord(folder), folder);
  });

  app.patch('/folders/:id', jsonBody(renameBody), async (c) => {
    const id = pathId(c, 'id', FOLDER_NOT_FOUND);
    const user = c.get('auth').user;
    const input = c.req.valid('json');
    const expected = expectedVersion(c.req.header('if-match'));
    const folder = await c.get('store').transaction(async (tx) => {
      const current = await loadFolderForUpdate(tx, id);
      assertCollectionAccess(user, current.collectionId);
      checkVersion(expected, current, () => toFolderRecord(current));
      const now = deps.clock.iso();
      const patch = { ...definedOnly(input), ...touched(user, now), version: current.version + 1 };
      const row = (await tx.table(foldersTable).update(id, patch))!;
      await recordChange(tx, deps, {
        kind: 'folder',
        row,
        action: 'updated',
        actorId: user.id,
        at: now,
      });
      return row;
    });
    return answerRecord(c, toFolderRecord(folder), folder);
  });

  app.delete('/folders/:id', async (c) => {
    const id = pathId(c, 'id', FOLDER_NOT_FOUND);
    const user = c.get('auth').user;
    const expected = expectedVersion(c.req.header('if-match'));
    const removed = await c.get('store').transaction(async (tx) => {
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
    });
    await publishDeleted(deps, c.get('tenant').id, removed);
    return c.body(null, 204);
  });

  app.put('/collections/:collectionId/folders/reorder', jsonBody(reorderBody), async (c) => {
    const collectionId = pathId(c, 'collectionId', 'Collection not found');
    const user = c.get('auth').user;
    const { orderedFolderIds, parentFolderId } = c.req.valid('json');
    await c.get('store').transaction(async (tx) => {
      await requireCollection(tx, user, collectionId);
      const all = await foldersOf(tx, collectionId);
      let parent: string | null;
      if (parentFolderId !== undefined) {
        if (parentFolderId !== null && !all.some((f) => f.id === parentFolderId))
          throw notFound(FOLDER_NOT_FOUND);
        parent = parentFolderId;
      } else {
        if (orderedFolderIds.length === 0) return;
        const first = all.find((f) => f.id === orderedFolderIds[0]);
        if (!first) throw notFound(`${FOLDER_NOT_FOUND}: ${orderedFolderIds[0]}`);
        parent = first.parentFolderId;
      }
      const siblings = all.filter((f) => f.parentFolderId === parent);
      const inCollection = new Set(all.map((f) => f.id));
      const order = planReorder(siblings, orderedFolderIds, 'orderedFolderIds', {
        inCollection,
        notFound: FOLDER_NOT_FOUND,
      });
      const patches = new Map<string, Partial<FolderRow>>();
      addSortOrders(patches, renumber(order));
      await writeChanges(tx.table(foldersTable), patches);
    });
    return c.body(null, 204);
  });

  app.put('/folders/:id/move', jsonBody(moveBody), async (c) => {
    const id = pathId(c, 'id', FOLDER_NOT_FOUND);
    const user = c.get('auth').user;
    const { parentFolderId: target, sortOrder: index } = c.req.valid('json');
    const folder = await c.get('store').transaction(async (tx) => {
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
    });
    return answerRecord(c, toFolderRecord(folder), folder);
  });

  app.get('/admin/collections/:collectionId/folders', async (c) => {
    const collectionId = pathId(c, 'collectionId', 'Collection not found');
    if (!(await c.get('store').table(collectionsTable).get(collectionId)))
      throw notFound('Collection not found');
    const folders = sortSiblings(await foldersOf(c.get('store'), collectionId));
    return c.json({ folders: folders.map(toFolderRecord) });
  });
}
