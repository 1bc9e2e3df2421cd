/**
 * The user list of `GET /admin/users` and `workspace-hub user list`, and what other plugins add
 * to each user of it: `identityProvider`, the sign-in provider a user is linked to (single sign-on
 * registers it). Extensions are per hub (keyed by its identity service), so hubs in one process
 * never share them.
 */
import type { Identity } from '../../kernel/identity/identity.ts';
import type { UserRow } from '../../kernel/identity/tables.ts';
import { toUserRecord, type UserRecord } from '../../kernel/identity/users.ts';
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

/** A user as the list shows it: the record, the provider it signs in through, and warnings. */
export type ListedUser = UserRecord & { identityProvider?: LinkedProvider; warnings: string[] };

/** Every user of the store's tenant as the list shows it (the API and the CLI both use this). */
export async function listUsers(identity: Identity, store: Store): Promise<ListedUser[]> {
  const rows = await identity.users.list(store);
  const warnings = await identity.users.warnings(store, rows);
  const linked = new Map<string, LinkedProvider>();
  for (const extension of userListExtensions(identity))
    for (const [id, provider] of await extension.linked(store, rows)) linked.set(id, provider);
  return rows.map((row) => {
    const provider = linked.get(row.id);
    return {
      ...toUserRecord(row),
      ...(provider ? { identityProvider: provider } : {}),
      warnings: warnings.get(row.id) ?? [],
    };
  });
}
