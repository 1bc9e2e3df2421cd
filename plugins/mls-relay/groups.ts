/**
 * MLS groups are discussion threads: a group id names its target (`thread:<entityType>:<id>`), and
 * only users who may discuss that target may relay anything for the group. The checks are the
 * entities plugin's target checks (the ones discussions use), with the relay's own 404 wording.
 * Group ids are canonicalized (`thread:<entityType>:<entityId>`) before anything is stored or
 * looked up.
 */
import { badRequest, HttpError, notFound } from '../../kernel/errors.ts';
import type { UserRow } from '../../kernel/identity/tables.ts';
import type { Store } from '../../kernel/storage/contract.ts';
import { requireTarget, type EntityTarget, type TargetType } from '../entities/index.ts';
import { ID_MAX } from '../../kernel/http/params.ts';

export const INVALID_GROUP_ID = 'Invalid MLS group id';
export const GROUP_TARGET_NOT_FOUND = 'Discussion target not found';

/** `thread:<entityType>:<entityId>`, the MLS group id convention of the desktop client. */
const GROUP_ID = /^thread:(request|collection|folder|runresult):(.+)$/i;

export interface ParsedGroupId {
  entityType: TargetType;
  entityId: string;
  /**
   * The one spelling of the group id, `thread:<entityType>:<entityId>` with the entity type as in
   * TARGET_TYPES: the prefix matches in any case, so this is what the relay stores and
   * compares, lest `THREAD:collection:x` and `thread:collection:x` become two groups.
   */
  mlsGroupId: string;
}

/** Parses an MLS group id into its target, or null when it does not follow the convention. */
export function parseGroupId(mlsGroupId: string): ParsedGroupId | null {
  const match = GROUP_ID.exec(mlsGroupId.trim());
  if (!match) return null;
  const kind = match[1]!.toLowerCase();
  const entityType = (kind === 'runresult' ? 'runResult' : kind) as TargetType;
  const entityId = match[2]!;
  return { entityType, entityId, mlsGroupId: `thread:${entityType}:${entityId}` };
}

/**
 * The target of an MLS group after checking it, with the group id in its canonical spelling (the
 * only one the relay stores or compares): 400 when the id does not follow the convention, 404
 * `Discussion target not found` when the target does not exist, 403 without access.
 */
export async function requireGroupTarget(
  store: Store,
  user: UserRow,
  mlsGroupId: string,
): Promise<{ target: EntityTarget; mlsGroupId: string }> {
  const parsed = parseGroupId(mlsGroupId);
  if (!parsed) throw badRequest(INVALID_GROUP_ID);
  // No entity id is longer than the id columns; such a target cannot exist.
  if (parsed.entityId.length > ID_MAX) throw notFound(GROUP_TARGET_NOT_FOUND);
  try {
    const target = await requireTarget(store, user, parsed.entityType, parsed.entityId);
    return { target, mlsGroupId: parsed.mlsGroupId };
  } catch (error) {
    if (error instanceof HttpError && error.status === 404) throw notFound(GROUP_TARGET_NOT_FOUND);
    throw error;
  }
}
