/**
 * Folders inside a collection, nested through `parentFolderId` (null = the collection root).
 * Deleting a folder removes its whole subtree with the requests and documents in it; a folder can
 * be moved under another parent but never into itself or its own subtree. Access is the
 * collection's.
 */
import { z } from 'zod';
import type { Hono } from 'hono';
import { notFound } from '../../../kernel/errors.ts';
import { newId } from '../../../kernel/identity/secrets.ts';
import type { UserRow } from '../../../kernel/identity/tables.ts';
import type { KernelEnv } from '../../../kernel/plugin.ts';
import type { Store } from '../../../kernel/storage/contract.ts';
import { assertCollectionAccess, requireCollection } from '../access.ts';
import { created, touched } from '../attribution.ts';
import type { EntityDeps } from '../deps.ts';
import { publishDeleted } from '../events.ts';
import {
  addSortOrders,
  nextSortOrder,
  planReorder,
  renumber,
  sortSiblings,
  writeChanges,
} from '../ordering.ts';
import { answerRecord, checkVersion, expectedVersion, recordChange } from '../history/record.ts';
import { toFolderRecord } from '../records.ts';
import { definedOnly, idSchema, listOf, markerSchema, nameSchema } from '../schemas.ts';
import {
  FOLDER_NOT_FOUND,
  foldersOf,
  loadFolderForUpdate,
  moveFolder,
  PARENT_NOT_FOUND,
  removeFolderTree,
} from './folder-tree.ts';
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

/** A new folder, last among its siblings, with its revision. */
async function createFolder(
  tx: Store,
  deps: EntityDeps,
  user: UserRow,
  collectionId: string,
  input: z.output<typeof createBody>,
): Promise<FolderRow> {
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
}

/**
 * Puts the listed folders of one parent in this order; the parent is the one named, else the
 * listed folders' common parent.
 */
async function reorderFolders(
  tx: Store,
  user: UserRow,
  collectionId: string,
  orderedFolderIds: readonly string[],
  parentFolderId: string | null | undefined,
): Promise<void> {
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
}

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
    const folder = await c
      .get('store')
      .transaction((tx) => createFolder(tx, deps, user, collectionId, input));
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
    const removed = await c
      .get('store')
      .transaction((tx) => removeFolderTree(tx, deps, user, id, expected));
    await publishDeleted(deps, c.get('tenant').id, removed);
    return c.body(null, 204);
  });

  app.put('/collections/:collectionId/folders/reorder', jsonBody(reorderBody), async (c) => {
    const collectionId = pathId(c, 'collectionId', 'Collection not found');
    const user = c.get('auth').user;
    const { orderedFolderIds, parentFolderId } = c.req.valid('json');
    await c
      .get('store')
      .transaction((tx) =>
        reorderFolders(tx, user, collectionId, orderedFolderIds, parentFolderId),
      );
    return c.body(null, 204);
  });

  app.put('/folders/:id/move', jsonBody(moveBody), async (c) => {
    const id = pathId(c, 'id', FOLDER_NOT_FOUND);
    const user = c.get('auth').user;
    const { parentFolderId: target, sortOrder: index } = c.req.valid('json');
    const folder = await c
      .get('store')
      .transaction((tx) => moveFolder(tx, deps, user, id, target, index));
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
