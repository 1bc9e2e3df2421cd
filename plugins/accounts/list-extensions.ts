/**
 * What other plugins add to each user of `GET /admin/users`: `identityProvider`, the sign-in
 * provider a user is linked to (single sign-on registers it). Per hub (keyed by its identity
 * service), so hubs in one process never share extensions.
 */
import type { Identity } from '../../kernel/identity/identity.ts';
import type { UserRow } from '../../kernel/identity/tables.ts';
import type { Store } from '../../kernel/storage/contract.ts';
import type { Table } from '../../kernel/storage/table.ts';

export interface LinkedProvider {
  issuer: string;
  subject: string;
}

export interface UserListExtension {
  /** The tables the answer depends on (the cached list is kept until one of them changes). */
  tables: readonly Table[];
  /** The provider each listed user is linked to, by user id. */
  linked(store: Store, users: readonly UserRow[]): Promise<Map<string, LinkedProvider>>;
}

const registries = new WeakMap<Identity, UserListExtension[]>();

/** Registers an extension of this hub's user list (at plugin setup). */
export function extendUserList(identity: Identity, extension: UserListExtension): void {
  registries.set(identity, [...(registries.get(identity) ?? []), extension]);
}

export function userListExtensions(identity: Identity): readonly UserListExtension[] {
  return registries.get(identity) ?? [];
}
