/**
 * MLS groups are discussion threads: a group id names its target (`thread:<entityType>:<id>`), and
 * only users who may discuss that target may relay anything for the group. The checks are the
 * discussions plugin's, with the relay's own 404 wording. Group ids are canonicalized
 * (`thread:<entityType>:<entityId>`) before anything is stored or looked up.
 */
import { badRequest, HttpError, notFound } from '../../kernel/errors.ts';
import type { UserRow } from '../../kernel/identity/tables.ts';
import type { Store } from '../../kernel/storage/contract.ts';
import { parseGroupId, requireTarget, type DiscussionTarget } from '../discussions/targets.ts';
import { ID_MAX } from '../../kernel/http/params.ts';

export const INVALID_GROUP_ID = 'Invalid MLS group id';
export const GROUP_TARGET_NOT_FOUND = 'Discussion target not found';

/**
 * The target of an MLS group after checking it, with the group id in its canonical spelling (the
 * only one the relay stores or compares): 400 when the id does not follow the convention, 404
 * `Discussion target not found` when the target does not exist, 403 without access.
 */
export async function requireGroupTarget(
  store: Store,
  user: UserRow,
  mlsGroupId: string,
): Promise<{ target: DiscussionTarget; mlsGroupId: string }> {
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
