/**
 * The writes of top-level rows that record history: insert (version 1, `created`), update (next
 * version, `updated`), and delete with its cascade (`deleted`, dependants caused by the row).
 */
import type { Store } from '../../../kernel/storage/contract.ts';
import type { EntityDeps } from '../deps.ts';
import { createdSize, insertCreated, recordChange, recordChanges } from '../history/record.ts';
import { assertHistoryBudget, tallyRevisions } from '../history/usage.ts';
import { removeCollectionContents, type DeletedRecorder, type Removed } from './contents.ts';
import { rowsOf, type AnyTopLevelRow } from '../kinds/top-level.ts';
import type { TopLevelKind } from '../kinds/index.ts';

/**
 * Deletes the row and its dependants in the caller's transaction, recording their `deleted`
 * revisions (the dependants' caused by the row); returns every removed id.
 */
export async function removeRow(
  tx: Store,
  deps: EntityDeps,
  kind: TopLevelKind,
  row: AnyTopLevelRow,
  actorId: string | null,
): Promise<Removed> {
  const at = deps.clock.iso();
  const deleted: DeletedRecorder = (childKind, rows) =>
    recordChanges(
      tx,
      deps,
      rows.map((child) => ({
        kind: childKind,
        row: { ...child, version: child.version + 1 },
        action: 'deleted' as const,
        actorId,
        at,
        cause: row.id,
      })),
    );
  const removed = kind.container ? await removeCollectionContents(tx, row.id, deleted) : {};
  await kind.cascade?.(tx, row);
  await rowsOf(tx, kind).delete(row.id);
  const version = row.version + 1;
  const change = { row: { ...row, version }, action: 'deleted' as const, actorId, at };
  await recordChange(tx, deps, { kind: kind.name, ...change });
  return { ...removed, [kind.name]: [row.id] };
}

/** Inserts a new row (version 1) and records its `created` revision. */
export async function insertRow(
  tx: Store,
  deps: EntityDeps,
  kind: TopLevelKind,
  built: AnyTopLevelRow,
): Promise<AnyTopLevelRow> {
  const change = {
    row: built,
    action: 'created' as const,
    actorId: built.createdByUserId,
    at: built.createdAt,
  };
  await assertHistoryBudget(tx, deps.usage, deps.history(), change.actorId);
  await insertCreated(tx, kind.table, [built], [{ kind: kind.name, ...change }]);
  await tallyRevisions(tx, [{ actorId: change.actorId, size: createdSize(built) }], 1);
  return built;
}

/** Writes `patch` with the row's next version and records the `updated` revision. */
export async function updateRow(
  tx: Store,
  deps: EntityDeps,
  kind: TopLevelKind,
  current: AnyTopLevelRow,
  patch: Partial<AnyTopLevelRow>,
  actorId: string | null,
): Promise<AnyTopLevelRow> {
  const version = current.version + 1;
  const row = (await rowsOf(tx, kind).update(current.id, { ...patch, version }))!;
  const at = deps.clock.iso();
  await recordChange(tx, deps, { kind: kind.name, row, action: 'updated', actorId, at });
  return row;
}
