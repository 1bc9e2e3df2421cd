/**
 * Environments: named variable sets. An environment may inherit from a parent (`parentUuid`); the
 * parent must exist and be visible to the caller, and inheritance can never form a loop (the
 * desktop resolves variables by walking up the chain). Deleting a parent turns its children into
 * roots.
 */
import { z } from 'zod';
import { badRequest } from '../../../kernel/errors.ts';
import { hasAccess } from '../../../kernel/identity/access.ts';
import type { UserRow } from '../../../kernel/identity/tables.ts';
import type { Store } from '../../../kernel/storage/contract.ts';
import { lockTenant } from '../locks.ts';
import { created } from '../attribution.ts';
import { compareNames } from '../ordering.ts';
import { environmentRecord, SERVER_OWNED } from '../records.ts';
import { definedOnly, idSchema, markerSchema, nameSchema, optionalFields } from '../schemas.ts';
import { environmentsTable, type EnvironmentRow } from '../tables.ts';
import { kind } from './index.ts';
import { defineBehaviour } from './top-level.ts';

/** What a client writes besides the name, marker and parent: from the record. */
const settings = environmentRecord.omit({
  ...SERVER_OWNED,
  name: true,
  parentUuid: true,
  deletionLocked: true,
  marker: true,
}).shape;
const placement = {
  marker: markerSchema.optional(),
  parentUuid: idSchema.nullable().optional(),
};

const createBody = z.object({ name: nameSchema, ...settings, ...placement });
const updateBody = z.object({
  name: nameSchema.optional(),
  ...optionalFields(settings),
  ...placement,
});

/** Longest inheritance chain walked when checking for loops. */
const MAX_CHAIN = 1000;

/**
 * Checks a new parent for `selfId` (null while creating): it must exist, the caller must see it,
 * and `selfId` must not be one of its ancestors.
 */
async function assertValidParent(
  tx: Store,
  user: UserRow,
  selfId: string | null,
  parentUuid: string,
): Promise<void> {
  if (parentUuid === selfId)
    throw badRequest('parentUuid: An environment cannot inherit from itself.');
  // Two concurrent re-parentings could each pass this check and close a loop together.
  await lockTenant(tx);
  const table = tx.table(environmentsTable);
  // An environment the caller cannot see is reported exactly like a missing one.
  const parent = hasAccess(user, kind('environment').field, parentUuid)
    ? await table.get(parentUuid)
    : null;
  if (!parent) throw badRequest('parentUuid: Environment not found.');
  let ancestor: string | null = parent.parentUuid;
  for (let steps = 0; ancestor !== null && steps < MAX_CHAIN; steps++) {
    if (ancestor === selfId)
      throw badRequest('parentUuid: An environment cannot inherit from one of its descendants.');
    ancestor = (await table.get(ancestor))?.parentUuid ?? null;
  }
}

export const environmentsBehaviour = defineBehaviour<
  EnvironmentRow,
  z.output<typeof createBody>,
  z.output<typeof updateBody>
>({
  compare: compareNames,
  createBody,
  updateBody,
  async create(input, { tx, user, now, id }) {
    const parentUuid = input.parentUuid ?? null;
    if (parentUuid !== null) await assertValidParent(tx, user, null, parentUuid);
    return {
      id,
      ...input,
      parentUuid,
      deletionLocked: false,
      marker: input.marker ?? null,
      ...created(user, now),
    };
  },
  async update(row, input, { tx, user }) {
    // Only a changed parent is checked: the desktop sends the current one back on every save,
    // even when the caller cannot see it.
    if (input.parentUuid != null && input.parentUuid !== row.parentUuid)
      await assertValidParent(tx, user, row.id, input.parentUuid);
    return definedOnly(input);
  },
  async cascade(tx, row) {
    await tx.table(environmentsTable).updateWhere({ parentUuid: row.id }, { parentUuid: null });
  },
});
