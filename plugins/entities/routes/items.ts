/**
 * One implementation for the two kinds of collection items, saved requests and documents: list,
 * create (last in its folder), update, creator-only delete, reorder within one folder, move to a
 * folder at an index, and the admin inspection routes. A kind (kinds/item.ts) names its table and
 * record schema, from which its bodies follow; the item columns (`collectionId`, `folderId`,
 * `sortOrder`, `marker`, attribution) are typed on every item table and handled here.
 */
import type { Context, Hono } from 'hono';
import type { z } from 'zod';
import { forbidden, notFound } from '../../../kernel/errors.ts';
import { newId } from '../../../kernel/identity/secrets.ts';
import type { UserRow } from '../../../kernel/identity/tables.ts';
import type { KernelEnv } from '../../../kernel/plugin.ts';
import type { Store } from '../../../kernel/storage/contract.ts';
import { cachedJsonBytes, sendCachedJson, toCachedJson } from '../../../kernel/http/cached-json.ts';
import { assertCollectionAccess, existingCollection, requireFolder } from '../access.ts';
import { loadLocked } from '../locks.ts';
import { created, touched } from '../attribution.ts';
import type { EntityDeps } from '../deps.ts';
import { ITEM_MOVED, publishDeleted, type ItemMovedEvent } from '../events.ts';
import { createAppender } from './append.ts';
import { assertHistoryBudget } from '../history/usage.ts';
import { itemMoveRoutes } from './item-moves.ts';
import { itemRows } from './item-rows.ts';
import {
  checkVersion,
  createdSize,
  etagOf,
  expectedVersion,
  insertCreated,
} from '../history/record.ts';
import type { ItemRow } from '../kinds/item.ts';
import type { AnyItemKind } from '../kinds/index.ts';
import { sortSiblings } from '../ordering.ts';
import { definedOnly } from '../schemas.ts';
import { collectionsTable } from '../tables.ts';
import { pathId } from '../../../kernel/http/params.ts';
import { jsonBody } from '../../../kernel/http/validate.ts';

type ItemRowsOf = ReturnType<typeof itemRows>;

/** Appends into one container: lock the collection, check the folder, then the next position. */
function itemAppender(deps: EntityDeps, kind: AnyItemKind, nextIn: ItemRowsOf['nextIn']) {
  return createAppender<{ collectionId: string; folderId: string | null }, ItemRow>({
    key: ({ collectionId, folderId }) => `${collectionId}:${folderId ?? ''}`,
    async start(tx, { collectionId, folderId }) {
      // Access was checked per create, before it joined a batch: here only the lock and existence.
      await existingCollection(tx, collectionId);
      await requireFolder(tx, collectionId, folderId);
      return { first: await nextIn(tx, collectionId, folderId), now: deps.clock.iso() };
    },
    async insert(tx, built, scopes) {
      await insertCreated(
        tx,
        kind.table,
        built,
        built.map((row, index) => ({
          kind: kind.name,
          row,
          action: 'created' as const,
          actorId: row.createdByUserId,
          at: row.createdAt,
          scope: scopes[index] ?? null,
        })),
      );
    },
  });
}

/**
 * An item's update the full way, under the collections' locks: checks the version, moves the item
 * (to another folder or collection, last there) where the update says so, and tells other plugins
 * when it changed collection.
 */
async function updateItem(
  tx: Store,
  deps: EntityDeps,
  kind: AnyItemKind,
  { load, loadForUpdate, nextIn, saveChange }: ItemRowsOf,
  change: {
    id: string;
    user: UserRow;
    expected: ReturnType<typeof expectedVersion>;
    to: { collectionId: string; folderId: string | null | undefined };
    patch: Record<string, unknown>;
  },
): Promise<ItemRow> {
  const { id, user, expected } = change;
  const { collectionId, folderId } = change.to;
  // The collections first, then the row: a fast edit holds only the row's lock.
  await loadLocked(tx, (t) => load(t, id), [collectionId]);
  const current = await loadForUpdate(tx, id);
  assertCollectionAccess(user, current.collectionId);
  checkVersion(expected, current, () => kind.toRecord(current));
  const sameCollection = collectionId === current.collectionId;
  if (!sameCollection && !(await tx.table(collectionsTable).get(collectionId)))
    throw notFound('Collection not found');
  // Without a folderId the item stays in its folder, or lands at the root of a new collection.
  const target = folderId !== undefined ? folderId : sameCollection ? current.folderId : null;
  await requireFolder(tx, collectionId, target);
  const moved = !sameCollection || target !== current.folderId;
  const sortOrder = moved ? await nextIn(tx, collectionId, target) : current.sortOrder;
  const now = deps.clock.iso();
  const patch = {
    ...change.patch,
    collectionId,
    folderId: target,
    sortOrder,
    ...touched(user, now),
  };
  const saved = await saveChange(tx, current, patch, moved ? 'moved' : 'updated', user.id, now);
  if (!sameCollection)
    await deps.events.publishInTransaction<ItemMovedEvent>(ITEM_MOVED, {
      tx,
      kind: kind.name,
      id,
      collectionId,
    });
  return saved;
}

/** The item with its ETag. */
function answerItem(c: Context<KernelEnv>, kind: AnyItemKind, row: ItemRow) {
  c.header('ETag', etagOf(row));
  return c.json(kind.toRecord(row));
}

/** `PUT /<prefix>/:id`: an edit in place when it can be one, else the full update (updateItem). */
async function putItem(
  c: Context<KernelEnv>,
  deps: EntityDeps,
  kind: AnyItemKind,
  ops: ItemRowsOf,
  input: z.output<AnyItemKind['updateBody']>,
) {
  const id = pathId(c, 'id', kind.notFound);
  const user = c.get('auth').user;
  const { collectionId, folderId, marker = null, ...fields } = input;
  assertCollectionAccess(user, collectionId);
  const expected = expectedVersion(c.req.header('if-match'));
  // An edit that stays in its collection and folder (the common case) is one versioned update
  // of the row alone (one statement on PostgreSQL below the revision limit; item-rows.ts), with
  // its revision: the collection lock only orders writers that plan positions, and the item
  // keeps its position. It changes the row only where the edit says it is (and at the version
  // If-Match names); otherwise the full path below answers (a move, 404, 412, and an If-Match
  // naming several versions or none of ours).
  const version = Array.isArray(expected)
    ? expected.length === 1
      ? expected[0]
      : null
    : undefined;
  if (version !== null) {
    const now = deps.clock.iso();
    const edited = await ops.editInPlace(
      c.get('store'),
      id,
      { ...definedOnly(fields), marker, ...touched(user, now) },
      {
        collectionId,
        ...(folderId !== undefined ? { folderId } : {}),
        ...(version !== undefined ? { version } : {}),
      },
      { kind: kind.name, action: 'updated', actorId: user.id, at: now },
    );
    if (edited) return answerItem(c, kind, edited);
  }
  const row = await c.get('store').transaction((tx) =>
    updateItem(tx, deps, kind, ops, {
      id,
      user,
      expected,
      to: { collectionId, folderId },
      patch: { ...definedOnly(fields), marker },
    }),
  );
  return answerItem(c, kind, row);
}

export function itemRoutes(app: Hono<KernelEnv>, deps: EntityDeps, kind: AnyItemKind): void {
  const ops = itemRows(deps, kind);
  const { rows, nextIn, load, loadForUpdate, remove } = ops;
  const appender = itemAppender(deps, kind, nextIn);
  const listed = (list: ItemRow[]) => ({
    [kind.prefix]: sortSiblings(list).map((row) => kind.toRecord(row)),
  });

  app.get(`/collections/:collectionId/${kind.prefix}`, async (c) => {
    const collectionId = pathId(c, 'collectionId', 'Collection not found');
    const store = c.get('store');
    assertCollectionAccess(c.get('auth').user, collectionId);
    // Serialized once, kept until a collection or an item of this kind changes.
    const answer = await deps.cache.read(
      store,
      `entities:${store.tenantId}:${kind.prefix}:${collectionId}`,
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

  app.get(`/${kind.prefix}/:id`, async (c) => {
    const id = pathId(c, 'id', kind.notFound);
    const row = await load(c.get('store'), id);
    assertCollectionAccess(c.get('auth').user, row.collectionId);
    c.header('ETag', etagOf(row));
    return c.json(kind.toRecord(row));
  });

  app.post(`/collections/:collectionId/${kind.prefix}`, jsonBody(kind.createBody), async (c) => {
    const collectionId = pathId(c, 'collectionId', 'Collection not found');
    const user = c.get('auth').user;
    const { name, folderId = null, marker = null, ...content } = c.req.valid('json');
    assertCollectionAccess(user, collectionId);
    const store = c.get('store');
    // The budget before the create joins a batch, so it refuses this create alone.
    await assertHistoryBudget(store, deps.usage, deps.history(), user.id);
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
    // Committed with its batch: its revision counts in the history usage.
    deps.usage.add(store, user.id, createdSize(row));
    return c.json(kind.toRecord(row), 200);
  });

  app.put(`/${kind.prefix}/:id`, jsonBody(kind.updateBody), (c) =>
    putItem(c, deps, kind, ops, c.req.valid('json')),
  );

  app.delete(`/${kind.prefix}/:id`, async (c) => {
    const id = pathId(c, 'id', kind.notFound);
    const user = c.get('auth').user;
    const expected = expectedVersion(c.req.header('if-match'));
    await c.get('store').transaction(async (tx) => {
      const current = await loadForUpdate(tx, id);
      assertCollectionAccess(user, current.collectionId);
      checkVersion(expected, current, () => kind.toRecord(current));
      // Only the creator, even for admins; admins have DELETE /admin/<kind>/:id.
      if (current.createdByUserId !== user.id)
        throw forbidden(`Only the ${kind.noun}'s creator can delete it.`);
      await remove(tx, current, user.id);
    });
    await publishDeleted(deps, c.get('tenant').id, { [kind.name]: [id] });
    return c.body(null, 204);
  });

  itemMoveRoutes(app, deps, kind);
}
