/**
 * When entities are deleted, their discussions go with them: comments and thread subscriptions of
 * removed requests, collections, folders and run results. A collection's deletion event already
 * lists the folders and requests it contained, so nothing here walks the tree.
 */
import type { Store } from '../../kernel/storage/contract.ts';
import { commentsTable, subscriptionsTable } from './tables.ts';
import { type DeletedKind, type EntitiesDeletedEvent, type TargetType } from '../entities/index.ts';

const KINDS: readonly (readonly [DeletedKind, TargetType])[] = [
  ['request', 'request'],
  ['collection', 'collection'],
  ['folder', 'folder'],
  ['runResult', 'runResult'],
];

/** Ids per statement: keeps `IN (...)` lists well under every driver's parameter limit. */
const CHUNK = 500;

/**
 * Deletes the discussions of every removed target in the event, in one transaction: a failure
 * part-way leaves every discussion in place instead of some.
 */
export async function removeDiscussions(store: Store, event: EntitiesDeletedEvent): Promise<void> {
  await store.transaction(async (tx) => {
    for (const [kind, entityType] of KINDS) {
      const ids = event.removed[kind] ?? [];
      for (let start = 0; start < ids.length; start += CHUNK) {
        const where = { entityType, entityId: { in: ids.slice(start, start + CHUNK) } };
        await tx.table(subscriptionsTable).deleteWhere(where);
        await tx.table(commentsTable).deleteWhere(where);
      }
    }
  });
}
