/**
 * One implementation for the two kinds of collection items, saved requests and documents: list,
 * create (last in its folder), update, creator-only delete, reorder within one folder, move to a
 * folder at an index, and the admin inspection routes. A kind (item-kind.ts) names its table and
 * record schema, from which its bodies follow; the item columns (`collectionId`, `folderId`,
 * `sortOrder`, `marker`, attribution) are typed on every item table and handled here.
 */
import { z } from 'zod';
import type { Hono } from 'hono';
import { forbidden, notFound } from '../../kernel/errors.ts';
import { newId } from '../../kernel/identity/secrets.ts';
import type { KernelEnv } from '../../kernel/plugin.ts';
import { cachedJsonBytes, sendCachedJson, toCachedJson } from '../../kernel/http/cached-json.ts';
import type { Store } from '../../kernel/storage/contract.ts';
import {
  assertCollectionAccess,
  created,
  existingCollection,
  ITEM_MOVED,
  loadLocked,
  publishDeleted,
  requireCollection,
  requireFolder,
  touched,
  type EntityDeps,
  type ItemMovedEvent,
} from './access.ts';
import { createAppender } from './append.ts';
import type { ItemKind, ItemRow } from './item-kind.ts';
import {
  addSortOrders,
  nextSortOrder,
  planMove,
  planReorder,
  renumber,
  sortSiblings,
  writeChanges,
} from './ordering.ts';
import { definedOnly, idSchema, listOf } from './schemas.ts';
import { collectionsTable } from './tables.ts';
import { pathId } from '../../kernel/http/params.ts';
import { jsonBody } from '../../kernel/http/validate.ts';

const moveBody = z.object({ folderId: idSchema.nullable(), index: z.number().int().min(0) });

export function itemRoutes(app: Hono<KernelEnv>, deps: EntityDeps, kind: ItemKind): void {
  const rows = (store: Store) => store.table(kind.table);
  const inContainer = (store: Store, collectionId: string, folderId: string | null) =>
    rows(store).find({ where: { collectionId, folderId } });
  /**
   * The next position in a container: one indexed row, not the whole folder. A folder (checked to
   * be in the collection, under its lock) is named alone, so only the (folderId, sortOrder) index
   * answers it; the root by (collectionId, folderId, sortOrder), ordered by folderId too, since
   * PostgreSQL takes `IS NULL` for a filter, not for a fixed value the index order may skip.
   */
  const nextIn = async (store: Store, collectionId: string, folderId: string | null) =>
    nextSortOrder(
      await rows(store).find(
        folderId === null
          ? {
              where: { collectionId, folderId },
              orderBy: [
                ['folderId', 'desc'],
                ['sortOrder', 'desc'],
              ],
              limit: 1,
            }
          : { where: { folderId }, orderBy: [['sortOrder', 'desc']], limit: 1 },
      ),
    );
  const load = async (store: Store, id: string): Promise<ItemRow> => {
    const row = await rows(store).get(id);
    if (!row) throw notFound(kind.notFound);
    return row;
  };
  /** Appends into one container: lock the collection, check the folder, then the next position. */
  const appender = createAppender<{ collectionId: string; folderId: string | null }, ItemRow>({
    key: ({ collectionId, folderId }) => `${collectionId}:${folderId ?? ''}`,
    async start(tx, { collectionId, folderId }) {
      // Access was checked per create, before it joined a batch: here only the lock and existence.
      await existingCollection(tx, collectionId);
      await requireFolder(tx, collectionId, folderId);
      return { first: await nextIn(tx, collectionId, folderId), now: deps.clock.iso() };
    },
    insert: (tx, built) => rows(tx).insertMany(built),
  });
  const listed = (list: ItemRow[]) => ({
    [kind.segment]: sortSiblings(list).map((row) => kind.toRecord(row)),
  });
  const reorderBody = z.object({
    folderId: idSchema.nullable().optional(),
    [kind.idsKey]: listOf(idSchema),
  });

  app.get(`/collections/:collectionId/${kind.segment}`, async (c) => {
    const collectionId = pathId(c, 'collectionId', 'Collection not found');
    const store = c.var.store;
    assertCollectionAccess(c.var.auth.user, collectionId);
    // Serialized once, kept until a collection or an item of this kind changes.
    const answer = await deps.cache.read(
      store,
      `entities:${store.tenantId}:${kind.segment}:${collectionId}`,
      [collectionsTable, kind.table],
      async () => {
        // A 404 is thrown, so it is never kept.
        await existingCollection(store, collectionId);
        return toCachedJson(listed(await rows(store).find({ where: { collectionId } })));
      },
      cachedJsonBytes,
    );
    return sendCachedJson(c, answer);
  });

  app.post(`/collections/:collectionId/${kind.segment}`, jsonBody(kind.createBody), async (c) => {
    const collectionId = pathId(c, 'collectionId', 'Collection not found');
    const user = c.var.auth.user;
    const { name, folderId = null, marker = null, ...content } = c.req.valid('json');
    assertCollectionAccess(user, collectionId);
    const store = c.var.store;
    // Last in its folder; concurrent creates into one folder are written together (append.ts).
    const row = await appender.append(
      { collectionId, folderId },
      store,
      (sortOrder, now) => ({
        ...content,
        id: newId(),
        collectionId,
        folderId,
        name,
        sortOrder,
        marker,
        ...created(user, now),
      }),
      Number(c.req.header('content-length') ?? 0) || 0,
    );
    return c.json(kind.toRecord(row), 200);
  });

  app.put(`/${kind.segment}/:id`, jsonBody(kind.updateBody), async (c) => {
    const id = pathId(c, 'id', kind.notFound);
    const user = c.var.auth.user;
    const { collectionId, folderId, marker = null, ...fields } = c.req.valid('json');
    assertCollectionAccess(user, collectionId);
    // An edit that stays in its collection and folder (the common case) is one statement on the
    // row alone: the collection lock only orders writers that plan positions, and the item keeps
    // its position. The row's own lock makes it atomic with a concurrent move or delete, after
    // which the condition no longer holds and the edit takes the full path below.
    const inPlace = { ...definedOnly(fields), marker, ...touched(user, deps.clock.iso()) };
    const stays = { collectionId, ...(folderId !== undefined ? { folderId } : {}) };
    const edited = await rows(c.var.store).update(id, inPlace, stays);
    if (edited) return c.json(kind.toRecord(edited));
    const row = await c.var.store.transaction(async (tx) => {
      const current = await loadLocked(tx, (t) => load(t, id), [collectionId]);
      assertCollectionAccess(user, current.collectionId);
      const sameCollection = collectionId === current.collectionId;
      if (!sameCollection && !(await tx.table(collectionsTable).get(collectionId)))
        throw notFound('Collection not found');
      // Without a folderId the item stays in its folder, or lands at the root of a new collection.
      const target = folderId !== undefined ? folderId : sameCollection ? current.folderId : null;
      await requireFolder(tx, collectionId, target);
      const moved = !sameCollection || target !== current.folderId;
      const sortOrder = moved ? await nextIn(tx, collectionId, target) : current.sortOrder;
      const patch = {
        ...definedOnly(fields),
        collectionId,
        folderId: target,
        sortOrder,
        marker,
        ...touched(user, deps.clock.iso()),
      };
      const updated = await rows(tx).update(id, patch);
      if (!sameCollection)
        await deps.events.publishInTransaction<ItemMovedEvent>(ITEM_MOVED, {
          tx,
          kind: kind.deletedKind,
          id,
          collectionId,
        });
      return updated;
    });
    if (!row) throw notFound(kind.notFound);
    return c.json(kind.toRecord(row));
  });

  app.delete(`/${kind.segment}/:id`, async (c) => {
    const id = pathId(c, 'id', kind.notFound);
    const user = c.var.auth.user;
    await c.var.store.transaction(async (tx) => {
      const current = await load(tx, id);
      assertCollectionAccess(user, current.collectionId);
      // Only the creator, even for admins; admins have DELETE /admin/<kind>/:id.
      if (current.createdByUserId !== user.id) throw forbidden();
      await rows(tx).delete(id);
    });
    await publishDeleted(deps, c.var.tenant.id, { [kind.deletedKind]: [id] });
    return c.body(null, 204);
  });

  app.put(
    `/collections/:collectionId/${kind.segment}/reorder`,
    jsonBody(reorderBody),
    async (c) => {
      const collectionId = pathId(c, 'collectionId', 'Collection not found');
      const body = c.req.valid('json') as { folderId?: string | null } & Record<string, string[]>;
      const ids = body[kind.idsKey]!;
      await c.var.store.transaction(async (tx) => {
        await requireCollection(tx, c.var.auth.user, collectionId);
        let folderId: string | null;
        if (body.folderId !== undefined) {
          folderId = body.folderId;
          await requireFolder(tx, collectionId, folderId);
        } else {
          // The spec's body names the folder; without it, the listed items' own folder is meant.
          if (ids.length === 0) return;
          const first = await rows(tx).get(ids[0]!);
          if (!first || first.collectionId !== collectionId)
            throw notFound(`${kind.notFound}: ${ids[0]}`);
          folderId = first.folderId;
        }
        const siblings = await inContainer(tx, collectionId, folderId);
        // Listed ids outside the folder: those of this collection are a 400, the rest a 404.
        const sibling = new Set(siblings.map((row) => row.id));
        const outside = [...new Set(ids.filter((id) => !sibling.has(id)))];
        const inCollection = new Set(
          (outside.length > 0 ? await rows(tx).getMany(outside) : [])
            .filter((row) => row.collectionId === collectionId)
            .map((row) => row.id),
        );
        const patches = new Map<string, Partial<ItemRow>>();
        addSortOrders(
          patches,
          renumber(
            planReorder(siblings, ids, kind.idsKey, { inCollection, notFound: kind.notFound }),
          ),
        );
        await writeChanges(rows(tx), patches);
      });
      return c.body(null, 204);
    },
  );

  app.put(`/${kind.segment}/:id/move`, jsonBody(moveBody), async (c) => {
    const id = pathId(c, 'id', kind.notFound);
    const user = c.var.auth.user;
    const { folderId: target, index } = c.req.valid('json');
    await c.var.store.transaction(async (tx) => {
      const item = await loadLocked(tx, (t) => load(t, id));
      assertCollectionAccess(user, item.collectionId);
      await requireFolder(tx, item.collectionId, target);
      const source = await inContainer(tx, item.collectionId, item.folderId);
      const destination =
        target === item.folderId ? null : await inContainer(tx, item.collectionId, target);
      const patches = new Map<string, Partial<ItemRow>>();
      addSortOrders(patches, planMove(item, source, destination, index));
      if (destination !== null || patches.has(id)) {
        patches.set(id, {
          ...patches.get(id),
          folderId: target,
          ...touched(user, deps.clock.iso()),
        });
      }
      await writeChanges(rows(tx), patches);
    });
    return c.body(null, 204);
  });

  app.get(`/admin/collections/:collectionId/${kind.segment}`, async (c) => {
    const collectionId = pathId(c, 'collectionId', 'Collection not found');
    if (!(await c.var.store.table(collectionsTable).get(collectionId)))
      throw notFound('Collection not found');
    return c.json(listed(await rows(c.var.store).find({ where: { collectionId } })));
  });

  app.delete(`/admin/${kind.segment}/:id`, async (c) => {
    const id = pathId(c, 'id', kind.notFound);
    if (!(await rows(c.var.store).delete(id))) throw notFound(kind.notFound);
    await publishDeleted(deps, c.var.tenant.id, { [kind.deletedKind]: [id] });
    return c.body(null, 204);
  });
}
