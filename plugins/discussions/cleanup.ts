/**
 * When entities are deleted, their discussions go with them: comments and thread subscriptions of
 * removed requests, collections, folders and run results. A collection's deletion event already
 * lists the folders and requests it contained, so nothing here walks the tree.
 */
import type { Store } from '../../kernel/storage/contract.ts';
import { commentsTable, subscriptionsTable } from './tables.ts';
import { TARGET_TYPES, type EntitiesDeletedEvent } from '../entities/index.ts';

/** Ids per statement: keeps `IN (...)` lists well under every driver's parameter limit. */
const CHUNK = 500;

/**
 * Deletes the discussions of every removed target in the event, in one transaction: a failure
 * part-way leaves every discussion in place instead of some.
 */
export async function removeDiscussions(store: Store, event: EntitiesDeletedEvent): Promise<void> {
  await store.transaction(async (tx) => {
    // A target's kind is named in the event as in the discussion (one name per kind).
    for (const entityType of TARGET_TYPES) {
      const ids = event.removed[entityType] ?? [];
      for (let start = 0; start < ids.length; start += CHUNK) {
        const where = { entityType, entityId: { in: ids.slice(start, start + CHUNK) } };
        await tx.table(subscriptionsTable).deleteWhere(where);
        await tx.table(commentsTable).deleteWhere(where);
      }
    }
  });
}
