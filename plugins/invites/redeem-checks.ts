/**
 * What other plugins may say against an invitation of a user: single sign-on refuses one for a
 * person an administrator blocked, so a code issued before (or while) the block was made never
 * becomes a token. Per hub (keyed by its identity service), so hubs in one process never share
 * checks.
 */
import type { Identity } from '../../kernel/identity/identity.ts';
import type { UserRow } from '../../kernel/identity/tables.ts';
import type { Store } from '../../kernel/storage/contract.ts';

/** Why this user may get no token through an invitation now (said to an admin), or null. */
export type InvitationCheck = (store: Store, user: UserRow) => Promise<string | null>;

const registries = new WeakMap<Identity, InvitationCheck[]>();

/** Registers a check of this hub's invitations (at plugin setup). */
export function checkInvitations(identity: Identity, check: InvitationCheck): void {
  registries.set(identity, [...(registries.get(identity) ?? []), check]);
}

/** The first objection of the registered checks to this user's invitations, or null. */
export async function invitationObjection(
  identity: Identity,
  store: Store,
  user: UserRow,
): Promise<string | null> {
  for (const check of registries.get(identity) ?? []) {
    const objection = await check(store, user);
    if (objection !== null) return objection;
  }
  return null;
}
