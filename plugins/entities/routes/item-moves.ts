/**
 * The item routes that change positions (reorder within a folder, move to a folder at an index)
 * and the admin inspection routes, for one kind. A reorder changes positions only and records no
 * revision; a move records a `moved` revision of the item.
 */
import { z } from 'zod';
import type { Hono } from 'hono';
import { notFound } from '../../../kernel/errors.ts';
import type { KernelEnv } from '../../../kernel/plugin.ts';
import { pathId } from '../../../kernel/http/params.ts';
import { jsonBody } from '../../../kernel/http/validate.ts';
import { assertCollectionAccess, requireCollection, requireFolder } from '../access.ts';
import { loadLocked } from '../locks.ts';
import type { EntityDeps } from '../deps.ts';
import { publishDeleted } from '../events.ts';
import type { ItemRow } from '../kinds/item.ts';
import type { AnyItemKind } from '../kinds/index.ts';
import { itemRows } from './item-rows.ts';
import { stampMoved } from './moved.ts';
import {
  addSortOrders,
  planMove,
  planReorder,
  renumber,
  sortSiblings,
  writeChanges,
} from '../ordering.ts';
import { idSchema, listOf } from '../schemas.ts';
import { collectionsTable } from '../tables.ts';

const moveBody = z.object({ folderId: idSchema.nullable(), index: z.number().int().min(0) });

export function itemMoveRoutes(app: Hono<KernelEnv>, deps: EntityDeps, kind: AnyItemKind): void {
  const { rows, inContainer, load, loadForUpdate, remove } = itemRows(deps, kind);
  const listed = (list: ItemRow[]) => ({
    [kind.prefix]: sortSiblings(list).map((row) => kind.toRecord(row)),
  });
  const reorderBody = z.object({
    folderId: idSchema.nullable().optional(),
    [kind.idsKey]: listOf(idSchema),
  });

  app.put(`/collections/:collectionId/${kind.prefix}/reorder`, jsonBody(reorderBody), async (c) => {
    const collectionId = pathId(c, 'collectionId', 'Collection not found');
    const body = c.req.valid('json') as { folderId?: string | null } & Record<string, string[]>;
    const ids = body[kind.idsKey]!;
    await c.get('store').transaction(async (tx) => {
      await requireCollection(tx, c.get('auth').user, collectionId);
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
  });

  app.put(`/${kind.prefix}/:id/move`, jsonBody(moveBody), async (c) => {
    const id = pathId(c, 'id', kind.notFound);
    const user = c.get('auth').user;
    const { folderId: target, index } = c.req.valid('json');
    await c.get('store').transaction(async (tx) => {
      await loadLocked(tx, (t) => load(t, id));
      // Locked after its collection: a fast edit holds only the row's lock.
      const item = await loadForUpdate(tx, id);
      assertCollectionAccess(user, item.collectionId);
      await requireFolder(tx, item.collectionId, target);
      const source = await inContainer(tx, item.collectionId, item.folderId);
      const destination =
        target === item.folderId ? null : await inContainer(tx, item.collectionId, target);
      const patches = new Map<string, Partial<ItemRow>>();
      addSortOrders(patches, planMove(item, source, destination, index));
      await stampMoved(tx, deps, {
        kind: kind.name,
        table: rows(tx),
        row: item,
        patches,
        placement: { folderId: target },
        left: destination !== null,
        user,
      });
    });
    return c.body(null, 204);
  });

  app.get(`/admin/collections/:collectionId/${kind.prefix}`, async (c) => {
    const collectionId = pathId(c, 'collectionId', 'Collection not found');
    if (!(await c.get('store').table(collectionsTable).get(collectionId)))
      throw notFound('Collection not found');
    return c.json(listed(await rows(c.get('store')).find({ where: { collectionId } })));
  });

  app.delete(`/admin/${kind.prefix}/:id`, async (c) => {
    const id = pathId(c, 'id', kind.notFound);
    const store = c.get('store');
    await store.transaction(async (tx) =>
      remove(tx, await loadForUpdate(tx, id), c.get('auth').user.id),
    );
    await publishDeleted(deps, c.get('tenant').id, { [kind.name]: [id] });
    return c.body(null, 204);
  });
}
