/**
 * Keeps the feed free of dangling notices: when entities are deleted, their notices go too. The feed
 * would hide them anyway (their target is gone), but they would still count as unread.
 */
import type { Store } from '../../kernel/storage/contract.ts';
import { noticesTable } from './tables.ts';
import { TARGET_TYPES, type EntitiesDeletedEvent } from '../entities/index.ts';

/** Ids per `in` condition, well below every driver's bound-parameter limit. */
const CHUNK = 500;

const chunks = <T>(items: readonly T[]): T[][] =>
  Array.from({ length: Math.ceil(items.length / CHUNK) }, (_, i) =>
    items.slice(i * CHUNK, (i + 1) * CHUNK),
  );

/**
 * Deletes every notice about a removed target, or about anything inside a removed collection, in one
 * transaction: a failure part-way leaves every notice in place instead of some.
 */
export async function deleteNoticesOfRemoved(
  store: Store,
  event: EntitiesDeletedEvent,
): Promise<number> {
  return store.transaction(async (tx) => {
    const notices = tx.table(noticesTable);
    let deleted = 0;
    for (const kind of TARGET_TYPES) {
      for (const ids of chunks(event.removed[kind] ?? [])) {
        deleted += await notices.deleteWhere({ entityType: kind, entityId: { in: ids } });
      }
    }
    for (const ids of chunks(event.removed.collection ?? [])) {
      deleted += await notices.deleteWhere({ collectionId: { in: ids } });
    }
    return deleted;
  });
}
