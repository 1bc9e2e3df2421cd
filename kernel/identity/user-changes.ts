/**
 * The rules of creating and changing a user account (users.ts holds the service that runs them):
 * access lists checked against the role, names normalized and kept unique.
 */
import type { AuditSink } from '../audit.ts';
import type { Clock } from '../clock.ts';
import { badRequest, forbidden, notFound } from '../errors.ts';
import { isUniqueViolation, type Store } from '../storage/contract.ts';
import {
  ACCESS_FIELDS,
  accessLists,
  ENTITY_ACCESS_FIELDS,
  normalizeAccessList,
  type AccessLists,
  type AccessRegistry,
} from './access.ts';
import { userUpdated } from './audit-events.ts';
import { defaultColor, defaultInitials } from './avatar-defaults.ts';
import { newId } from './secrets.ts';
import { usersTable, type UserRow } from './tables.ts';
import { normalizeColor, normalizeInitials, normalizeUserName } from './user-fields.ts';

export type Role = 'user' | 'admin';

/** What a caller may set on a user besides the access lists. */
export type UserSettings = Pick<
  UserRow,
  'name' | 'avatarInitials' | 'avatarColor' | 'llmAccess' | 'llmMonthlyTokenLimit'
> & { role: Role };

/** Fields a caller may set on create (all but `name` and `role` optional) or update (all optional). */
export type UserInput = Partial<UserSettings & AccessLists>;

export interface UsersServiceDeps {
  access: AccessRegistry;
  clock: Clock;
  /** Called after a deletion committed: the user's tokens no longer authenticate. */
  onDeleted?: () => void;
  /** Where creations, changes and deletions are recorded, in their own transaction. */
  audit?: AuditSink;
}

export function assertHuman(row: UserRow | null): UserRow {
  if (!row) throw notFound('User not found');
  if (row.system)
    throw forbidden('The internal system account cannot be modified, deleted or given tokens.');
  return row;
}

/** Validates access lists present in `input` against the role, returning normalized lists. */
async function resolveAccessLists(
  store: Store,
  access: AccessRegistry,
  role: Role,
  input: UserInput,
): Promise<Partial<AccessLists>> {
  const lists: Partial<AccessLists> = {};
  for (const field of ACCESS_FIELDS) {
    const value = input[field];
    if (value === undefined) continue;
    const list = normalizeAccessList(field, value);
    if (role === 'admin' && field !== 'llmModels' && list.length > 0) {
      throw badRequest(
        `${field}: Admin users cannot have collection, environment, snippet, live server or live page access; admins have full access.`,
      );
    }
    await access.assertKnown(store, field, list);
    lists[field] = list;
  }
  return lists;
}

export function uniqueNameError(name: string) {
  return badRequest(`name: User name "${name}" is already in use.`);
}

/** The row of a new user, its access lists checked against its role. */
export async function newUserRow(
  store: Store,
  { access, clock }: Pick<UsersServiceDeps, 'access' | 'clock'>,
  input: UserInput & { name: string; role: Role },
  options: { system?: boolean },
): Promise<UserRow> {
  const name = options.system ? input.name : normalizeUserName(input.name);
  const lists = await resolveAccessLists(store, access, input.role, input);
  const now = clock.iso();
  return {
    id: newId(),
    name,
    nameKey: name.toLowerCase(),
    role: input.role,
    system: options.system ?? false,
    avatarInitials:
      input.avatarInitials !== undefined
        ? normalizeInitials(input.avatarInitials)
        : defaultInitials(name),
    avatarColor:
      input.avatarColor !== undefined ? normalizeColor(input.avatarColor) : defaultColor(name),
    avatarImageUpdatedAt: null,
    ...accessLists(lists),
    llmAccess: input.llmAccess ?? false,
    llmMonthlyTokenLimit: input.llmMonthlyTokenLimit ?? null,
    createdAt: now,
    updatedAt: now,
  };
}

/** The body of `update`, inside its transaction (the record and its audit event land together). */
export async function updateUser(
  { access, clock, audit }: Pick<UsersServiceDeps, 'access' | 'clock' | 'audit'>,
  store: Store,
  id: string,
  input: UserInput,
  actorId?: string,
): Promise<UserRow> {
  const users = store.table(usersTable);
  const current = assertHuman(await users.get(id));
  const role = input.role ?? (current.role as Role);
  if (actorId === id && input.role !== undefined && input.role !== current.role) {
    throw forbidden('You cannot change your own role.');
  }
  const lists = await resolveAccessLists(store, access, role, input);
  const patch: Partial<UserRow> = { ...lists, updatedAt: clock.iso() };
  if (input.name !== undefined) {
    patch.name = normalizeUserName(input.name);
    patch.nameKey = patch.name.toLowerCase();
  }
  if (input.role !== undefined) patch.role = input.role;
  // Admins store empty entity lists: promotion clears them.
  if (role === 'admin') for (const field of ENTITY_ACCESS_FIELDS) patch[field] = [];
  if (input.avatarInitials !== undefined)
    patch.avatarInitials = normalizeInitials(input.avatarInitials);
  if (input.avatarColor !== undefined) patch.avatarColor = normalizeColor(input.avatarColor);
  if (input.llmAccess !== undefined) patch.llmAccess = input.llmAccess;
  if (input.llmMonthlyTokenLimit !== undefined)
    patch.llmMonthlyTokenLimit = input.llmMonthlyTokenLimit;
  try {
    const updated = await users.update(id, patch);
    if (!updated) throw notFound('User not found');
    await audit?.record(store, userUpdated(current, updated));
    return updated;
  } catch (error) {
    if (isUniqueViolation(error)) throw uniqueNameError(patch.name ?? current.name);
    throw error;
  }
}
