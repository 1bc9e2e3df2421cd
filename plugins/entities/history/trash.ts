/**
 * A collection's trash: the folders, saved requests and documents deleted from it on their own
 * that can still be restored (what a folder's or the collection's deletion took with it comes back
 * with that, so it is not listed), newest first, in pages like the hub's other lists.
 */
import { z } from 'zod';
import type { Hono } from 'hono';
import { cursorQuery, encodeCursor, limitQuery } from '../../../kernel/http/paging.ts';
import { pathId } from '../../../kernel/http/params.ts';
import { validate } from '../../../kernel/http/validate.ts';
import { usersById } from '../../../kernel/identity/users.ts';
import type { KernelEnv } from '../../../kernel/plugin.ts';
import { assertCollectionAccess, existingCollection } from '../access.ts';
import { FOLDER_KIND, ITEM_KINDS } from '../kinds/index.ts';
import { actorSchema } from './revisions.ts';
import { trashTable } from './tables.ts';

export const trashItem = z
  .object({
    kind: z.enum([...ITEM_KINDS, FOLDER_KIND].map((kind) => kind.name)),
    id: z.string(),
    name: z.string(),
    deletedAt: z.string(),
    deletedBy: actorSchema,
  })
  .meta({ id: 'TrashItem' });

export const trashQuery = z.object({
  cursor: cursorQuery('trash'),
  limit: limitQuery(50),
});

export function trashRoutes(app: Hono<KernelEnv>): void {
  app.get('/collections/:id/trash', validate('query', trashQuery), async (c) => {
    const collectionId = pathId(c, 'id', 'Collection not found');
    const { cursor, limit } = c.req.valid('query');
    const store = c.get('store');
    assertCollectionAccess(c.get('auth').user, collectionId);
    await existingCollection(store, collectionId);
    const rows = await store.table(trashTable).find({
      // Only folders, saved requests and documents belong to a collection.
      where: { collectionId, cause: null },
      orderBy: [
        ['at', 'desc'],
        ['id', 'desc'],
      ],
      limit: limit + 1,
      ...(cursor ? { after: { at: cursor.createdAt, id: cursor.id } } : {}),
    });
    const page = rows.slice(0, limit);
    const users = await usersById(
      store,
      page.map((row) => row.actorId),
    );
    const last = page[page.length - 1];
    return c.json({
      items: page.map((row) => ({
        kind: row.kind,
        id: row.id,
        name: row.name,
        deletedAt: row.at,
        deletedBy: row.actorId
          ? { id: row.actorId, name: users.get(row.actorId)?.name ?? null }
          : null,
      })),
      ...(rows.length > limit && last
        ? { nextCursor: encodeCursor({ createdAt: last.at, id: last.id }) }
        : {}),
    });
  });
}
