/**
 * Keeping each notice's collection id equal to its target's collection, which the feed's scope
 * (feed-scope.ts) relies on: a request moved to another collection takes its notices along, in the
 * move's own transaction, and a migration sets the id of notices about requests that moved before.
 */
import type { Store } from '../../kernel/storage/contract.ts';
import { noticesTable, type NoticeRow } from './tables.ts';
import { targetTables, type ItemMovedEvent } from '../entities/index.ts';

/** Moves the notices about a moved request to its new collection, in the event's transaction. */
export async function moveNoticesOfItem(event: ItemMovedEvent): Promise<void> {
  if (event.kind !== 'request') return;
  await event.tx
    .table(noticesTable)
    .updateWhere(
      { entityType: 'request', entityId: event.id },
      { collectionId: event.collectionId },
    );
}

/** Request notices read per step of {@link resyncNoticeCollections}. */
const PAGE = 500;

/**
 * Sets every request notice's collection id to the collection its request is in now (a data
 * migration, on the unscoped store: request ids are unique across tenants). Notices of requests
 * that no longer exist are left alone; the feed hides them.
 */
export async function resyncNoticeCollections(store: Store): Promise<void> {
  const notices = store.table(noticesTable);
  const requests = store.table(targetTables.request);
  let after: Pick<NoticeRow, 'id'> | undefined;
  for (;;) {
    const rows = await notices.find({
      where: { entityType: 'request' },
      orderBy: [['id', 'asc']],
      limit: PAGE,
      ...(after ? { after } : {}),
    });
    const current = new Map(
      (await requests.getMany([...new Set(rows.map((row) => row.entityId))])).map((request) => [
        request.id,
        request.collectionId,
      ]),
    );
    const stale = new Map<string, string>();
    for (const row of rows) {
      const collectionId = current.get(row.entityId);
      if (collectionId !== undefined && collectionId !== row.collectionId)
        stale.set(row.entityId, collectionId);
    }
    for (const [entityId, collectionId] of stale)
      await notices.updateWhere({ entityType: 'request', entityId }, { collectionId });
    if (rows.length < PAGE) return;
    after = { id: rows[rows.length - 1]!.id };
  }
}
