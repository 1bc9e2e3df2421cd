/**
 * Removing revisions, whoever removes them (background pruning, the per-record limit applied by
 * each change, an admin's purge): in the caller's transaction the rows go and
 * `entities.revisions-pruned` hands them over (a revision is also its change's audit event, which
 * the audit log may keep longer). The caller takes their sizes off the history usage, in the
 * transaction or, on the hot path, once it has committed (usage.ts).
 */
import type { EventBus } from '../../../kernel/events.ts';
import { StorageError, type Store } from '../../../kernel/storage/contract.ts';
import { REVISIONS_PRUNED, type RevisionsPrunedEvent } from './change-log.ts';
import { revisionsTable, type RevisionRow } from './tables.ts';

/** Deletes `revisions` (read in `tx`) in `tx`, with their audit hand-over. */
export async function dropRevisions(
  tx: Store,
  events: EventBus,
  revisions: readonly RevisionRow[],
): Promise<void> {
  if (revisions.length === 0) return;
  const ids = revisions.map((row) => row.id);
  // Another remover (the background pruning, a purge) took some first: read again, from the top.
  if ((await tx.table(revisionsTable).deleteWhere({ id: { in: ids } })) !== ids.length)
    throw new StorageError('conflict', 'Revisions were removed meanwhile');
  await events.publishInTransaction<RevisionsPrunedEvent>(REVISIONS_PRUNED, {
    store: tx,
    revisions,
  });
}

/** Revisions removed at most by one change's transaction; the background pruning does the rest. */
const CAP_PAGE = 100;

/**
 * Applies `history.maxRevisionsPerRecord` in the transaction of a change: for each record that
 * now has a version above `max`, removes its revisions `max` or more versions older than the new
 * one (normally the single oldest). Resolves with what it removed.
 */
export async function capRevisions(
  tx: Store,
  events: EventBus,
  max: number,
  written: readonly { recordId: string; version: number }[],
): Promise<RevisionRow[]> {
  const removed: RevisionRow[] = [];
  for (const { recordId, version } of written) {
    if (version <= max) continue;
    removed.push(
      ...(await tx.table(revisionsTable).find({
        where: { recordId, version: { lte: version - max } },
        orderBy: [['version', 'asc']],
        limit: CAP_PAGE,
      })),
    );
  }
  await dropRevisions(tx, events, removed);
  return removed;
}
