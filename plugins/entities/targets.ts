/**
 * Targets: the entities other features attach things to (discussion threads, notices, MLS groups),
 * the kinds whose registry entry says what a target of theirs carries: a saved request, a
 * collection, a folder or a run result. Access to what is attached is access to its target: the
 * target's collection, and for run results the run-result rule (creator, admins, or access to the
 * run's collection).
 */
import { forbidden, notFound } from '../../kernel/errors.ts';
import { hasAccess, noAccess } from '../../kernel/identity/access.ts';
import type { UserRow } from '../../kernel/identity/tables.ts';
import type { Store } from '../../kernel/storage/contract.ts';
import { canReadRunResult, RUN_RESULT_REFUSED } from './run-results/access.ts';
import {
  COLLECTION_ACCESS,
  KINDS,
  kind,
  TARGET_KINDS,
  TARGET_TYPES,
  type TargetKind,
  type TargetType,
} from './kinds/index.ts';
import type { TargetFields } from './kinds/kind.ts';

export { TARGET_KINDS, TARGET_TYPES, type TargetKind, type TargetType };

export const TARGET_NOT_FOUND = 'Target entity not found';

export interface EntityTarget extends TargetFields {
  entityType: TargetType;
  entityId: string;
  collectionId: string | null;
  requestId: string | null;
  folderId: string | null;
  runResultId: string | null;
}

/** Loads the target, or null when it does not exist in this tenant. */
export async function loadTarget(
  store: Store,
  entityType: TargetType,
  entityId: string,
): Promise<EntityTarget | null> {
  const { table, target } = kind(entityType);
  const row = await store.table(table).get(entityId);
  if (!row) return null;
  const base = { entityType, entityId, requestId: null, folderId: null, runResultId: null };
  return { ...base, ...(target as (row: unknown) => TargetFields)(row) };
}

/** Throws the 403 of {@link canAccessTarget}, saying why. */
export function assertTargetAccess(user: UserRow, target: EntityTarget): void {
  if (canAccessTarget(user, target)) return;
  if (target.entityType === 'runResult') throw forbidden(RUN_RESULT_REFUSED);
  throw noAccess(COLLECTION_ACCESS);
}

/** Whether `user` may read this target, and so read and discuss what is attached to it. */
export function canAccessTarget(user: UserRow, target: EntityTarget): boolean {
  if (target.entityType === 'runResult') {
    return canReadRunResult(user, {
      createdByUserId: target.creatorUserId,
      collectionId: target.collectionId,
    });
  }
  return hasAccess(user, COLLECTION_ACCESS, target.collectionId!);
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

type Entry = (typeof KINDS)[number];

/** The table each target kind lives in (what a cached target depends on). */
export const targetTables = Object.fromEntries(
  TARGET_TYPES.map((name) => [name, kind(name).table]),
) as { [N in TargetType]: Extract<Entry, { name: N }>['table'] };
