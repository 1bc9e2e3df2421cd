/**
 * The row-level steps the item routes (items.ts, item-moves.ts) share for one kind: reads, the next
 * position in a container, and the writes that record history (a change with its next version, a
 * delete that keeps the row in its `deleted` revision).
 */
import { notFound } from '../../../kernel/errors.ts';
import type { Store, VersionedMatch } from '../../../kernel/storage/contract.ts';
import type { EntityDeps } from '../deps.ts';
import { recordChange, revisionOfUpdate, type Change } from '../history/record.ts';
import { capRevisions } from '../history/removal.ts';
import type { RevisionRow } from '../history/tables.ts';
import { assertHistoryBudget } from '../history/usage.ts';
import type { ItemRow } from '../kinds/item.ts';
import type { AnyItemKind } from '../kinds/index.ts';
import { nextSortOrder } from '../ordering.ts';

export type ItemRows = ReturnType<typeof itemRows>;

export function itemRows(deps: EntityDeps, kind: AnyItemKind) {
  const rows = (store: Store) => store.table(kind.table);
  const found = (row: ItemRow | null): ItemRow => {
    if (!row) throw notFound(kind.notFound);
    return row;
  };
  return {
    rows,
    inContainer: (store: Store, collectionId: string, folderId: string | null) =>
      rows(store).find({ where: { collectionId, folderId } }),
    /** The next position in a container: one indexed row, not the whole folder. */
    nextIn: async (store: Store, collectionId: string, folderId: string | null) =>
      // One indexed row, not the whole folder: a folder (checked to be in the collection, under
      // its lock) is named alone, so the (folderId, sortOrder) index answers it; the root by
      // (collectionId, folderId, sortOrder), ordered by folderId too, since PostgreSQL takes
      // `IS NULL` for a filter, not for a fixed value the index order may skip.
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
      ),
    load: async (store: Store, id: string) => found(await rows(store).get(id)),
    /** The row, locked to the end of the transaction (a change or delete records its version). */
    loadForUpdate: async (tx: Store, id: string) => found(await rows(tx).getForUpdate(id)),
    /**
     * An edit that keeps the item where it is (`match` pins its collection, maybe its folder and
     * version): the row and its revision in one versioned update (one statement on PostgreSQL)
     * while the record is below `history.maxRevisionsPerRecord`; at the limit, the same update
     * and the removal of the oldest revision in one transaction. Null when the row does not match
     * (the caller's full path tells why: moved, 404, 412). 409 when the history budget is spent.
     */
    editInPlace: (
      store: Store,
      id: string,
      patch: Partial<ItemRow>,
      match: VersionedMatch,
      change: Omit<Change, 'row'>,
    ): Promise<ItemRow | null> => editInPlace(deps, kind, store, id, patch, match, change),
    /** Writes `patch` with the row's next version, and records the revision. */
    async saveChange(
      tx: Store,
      current: ItemRow,
      patch: Partial<ItemRow>,
      action: 'updated' | 'moved',
      actorId: string | null,
      at: string,
    ): Promise<ItemRow> {
      // `current` was read under the row's lock in this transaction, so the new row is known
      // without reading it back (one statement less on SQLite and MySQL).
      const row = { ...current, ...patch, version: current.version + 1 };
      await rows(tx).updateWhere({ id: current.id }, { ...patch, version: row.version });
      await recordChange(tx, deps, { kind: kind.name, row, action, actorId, at });
      return row;
    },
    /** Deletes the row and records it, as it was, in a `deleted` revision (what undelete needs). */
    async remove(tx: Store, current: ItemRow, actorId: string | null): Promise<void> {
      await rows(tx).delete(current.id);
      const row = { ...current, version: current.version + 1 };
      const at = deps.clock.iso();
      await recordChange(tx, deps, { kind: kind.name, row, action: 'deleted', actorId, at });
    },
  };
}

/** The body of `editInPlace` (see there). */
async function editInPlace(
  deps: EntityDeps,
  kind: AnyItemKind,
  store: Store,
  id: string,
  patch: Partial<ItemRow>,
  match: VersionedMatch,
  change: Omit<Change, 'row'>,
): Promise<ItemRow | null> {
  const rows = (s: Store) => s.table(kind.table);
  const history = deps.history();
  await assertHistoryBudget(store, deps.usage, history, change.actorId);
  const max = history.maxRevisionsPerRecord;
  const expected = match['version'];
  let size = 0;
  const sized = (bytes: number) => (size = bytes);
  let removed: RevisionRow[] = [];
  let edited: ItemRow | null = null;
  if (typeof expected !== 'number' || expected < max) {
    const below = { ...match, version: expected ?? { lt: max } };
    edited = await rows(store).updateVersioned(
      id,
      patch,
      below,
      revisionOfUpdate(store, change, sized),
    );
  }
  edited ??= await store.transaction(async (tx) => {
    removed = [];
    const row = await rows(tx).updateVersioned(
      id,
      patch,
      match,
      revisionOfUpdate(tx, change, sized),
    );
    if (row)
      removed = await capRevisions(tx, deps.events, max, [{ recordId: id, version: row.version }]);
    return row;
  });
  // Committed: its revision counts in the history usage, and what it removed no longer does.
  if (edited) deps.usage.add(store, change.actorId, size);
  for (const revision of removed) deps.usage.add(store, revision.actorId, -revision.size);
  return edited;
}
