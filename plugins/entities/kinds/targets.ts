/**
 * Targets: the entities other features attach things to (discussion threads, notices, MLS groups):
 * a saved request, a collection, a folder or a run result. Access to what is attached is access to
 * its target: the target's collection for the first three, and for run results the run-result rule
 * (creator, admins, or access to the run's collection).
 */
import { forbidden, notFound } from '../../../kernel/errors.ts';
import { hasAccess, noAccess } from '../../../kernel/identity/access.ts';
import type { UserRow } from '../../../kernel/identity/tables.ts';
import type { Store } from '../../../kernel/storage/contract.ts';
import { canReadRunResult, RUN_RESULT_REFUSED } from '../run-results/routes.ts';
import { collectionsTable, foldersTable, requestsTable, runResultsTable } from '../tables.ts';

/** The kinds of entity something can be attached to, in the spelling the API uses. */
export const TARGET_TYPES = ['request', 'collection', 'folder', 'runResult'] as const;
export type TargetType = (typeof TARGET_TYPES)[number];

export const TARGET_NOT_FOUND = 'Target entity not found';

export interface EntityTarget {
  entityType: TargetType;
  entityId: string;
  /** The collection that governs access, or null for a run result outside any hub collection. */
  collectionId: string | null;
  requestId: string | null;
  folderId: string | null;
  runResultId: string | null;
  /** Who made the target (notified of new threads on it), when known. */
  creatorUserId: string | null;
  /** A human name for notices: the request, collection or folder name, or the run label. */
  label: string;
  /** For request targets: the HTTP method, shown beside the name. */
  method?: string;
}

/** Loads the target, or null when it does not exist in this tenant. */
export async function loadTarget(
  store: Store,
  entityType: TargetType,
  entityId: string,
): Promise<EntityTarget | null> {
  const base = { entityType, entityId, requestId: null, folderId: null, runResultId: null };
  switch (entityType) {
    case 'collection': {
      const row = await store.table(collectionsTable).get(entityId);
      return (
        row && {
          ...base,
          collectionId: row.id,
          creatorUserId: row.createdByUserId,
          label: row.name,
        }
      );
    }
    case 'folder': {
      const row = await store.table(foldersTable).get(entityId);
      return (
        row && {
          ...base,
          collectionId: row.collectionId,
          folderId: row.id,
          creatorUserId: row.createdByUserId,
          label: row.name,
        }
      );
    }
    case 'request': {
      const row = await store.table(requestsTable).get(entityId);
      return (
        row && {
          ...base,
          collectionId: row.collectionId,
          folderId: row.folderId,
          requestId: row.id,
          creatorUserId: row.createdByUserId,
          label: row.name,
          method: row.method,
        }
      );
    }
    case 'runResult': {
      const row = await store.table(runResultsTable).get(entityId);
      return (
        row && {
          ...base,
          collectionId: row.collectionId,
          runResultId: row.id,
          creatorUserId: row.createdByUserId,
          label: row.label,
        }
      );
    }
  }
}

/** Whether `user` may read this target, and so read and discuss what is attached to it. */
/** Throws the 403 of {@link canAccessTarget}, saying why. */
export function assertTargetAccess(user: UserRow, target: EntityTarget): void {
  if (canAccessTarget(user, target)) return;
  if (target.entityType === 'runResult') throw forbidden(RUN_RESULT_REFUSED);
  throw noAccess('collectionAccess');
}

export function canAccessTarget(user: UserRow, target: EntityTarget): boolean {
  if (target.entityType === 'runResult') {
    return canReadRunResult(user, {
      createdByUserId: target.creatorUserId,
      collectionId: target.collectionId,
    });
  }
  return hasAccess(user, 'collectionAccess', target.collectionId!);
}

/**
 * The target after checking it: 404 `Target entity not found` when it does not exist, 403 when
 * the user may not use it. A user without access to the collection learns nothing more than the
 * collection routes would tell them.
 */
export async function requireTarget(
  store: Store,
  user: UserRow,
  entityType: TargetType,
  entityId: string,
): Promise<EntityTarget> {
  return checkTarget(user, await loadTarget(store, entityType, entityId));
}

/** {@link requireTarget}'s checks on a target already loaded (or null when it does not exist). */
export function checkTarget(user: UserRow, target: EntityTarget | null): EntityTarget {
  if (!target) throw notFound(TARGET_NOT_FOUND);
  assertTargetAccess(user, target);
  return target;
}

/** The table each target kind lives in (what a cached target depends on). */
export const targetTables = {
  collection: collectionsTable,
  folder: foldersTable,
  request: requestsTable,
  runResult: runResultsTable,
} as const satisfies Record<TargetType, unknown>;
