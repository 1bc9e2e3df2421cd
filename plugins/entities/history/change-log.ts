/**
 * The revisions as a log of workspace changes, for the audit plugin: a page of them newest first
 * by who, what and when, and the event that hands over revisions about to be pruned (their audit
 * events may have to outlive them). The revisions table itself stays private to this plugin.
 */
import type { Store, Where } from '../../../kernel/storage/contract.ts';
import { revisionsTable, type RevisionAction, type RevisionRow } from './tables.ts';
import type { HistoryKind } from '../kinds/index.ts';

/**
 * Published inside the pruning transaction with the revisions it is about to delete: a handler's
 * writes through `store` commit with the deletion or not at all.
 */
export const REVISIONS_PRUNED = 'entities.revisions-pruned';

/** A recorded change: one revision row. */
export type ChangeRow = RevisionRow;

export interface RevisionsPrunedEvent {
  store: Store;
  revisions: readonly ChangeRow[];
}

export interface ChangeQuery {
  actorId?: string | undefined;
  kind?: HistoryKind | undefined;
  action?: RevisionAction | undefined;
  recordId?: string | undefined;
  /** Only ids at or above this one (a time-ordered id bound, kernel/time-id.ts). */
  from?: string | undefined;
  /** Only ids below this one. */
  below?: string | undefined;
  limit: number;
}

/**
 * Changes newest first. On SQL, filtering by record uses its index, by actor or action the key
 * order; Firestore has a composite index for each mix of filters (revisions' firestoreIndexes).
 */
export function changesPage(store: Store, query: ChangeQuery): Promise<ChangeRow[]> {
  const where: Where<RevisionRow> = {};
  if (query.actorId !== undefined) where.actorId = query.actorId;
  if (query.kind !== undefined) where.kind = query.kind;
  if (query.action !== undefined) where.action = query.action;
  if (query.recordId !== undefined) where.recordId = query.recordId;
  if (query.from !== undefined) where.id = { gte: query.from };
  return store.table(revisionsTable).find({
    where,
    orderBy: [['id', 'desc']],
    limit: query.limit,
    ...(query.below !== undefined ? { after: { id: query.below } } : {}),
  });
}
