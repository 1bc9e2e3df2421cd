/**
 * User accounts: the rules shared by the admin HTTP API and the CLI. Validation failures throw
 * 400/403/404 {@link HttpError}s whose messages the CLI prints as they are.
 */
import { forbidden, notFound, unauthorized } from '../errors.ts';
import { isUniqueViolation, type Store } from '../storage/contract.ts';
import { accessLists, type AccessLists } from './access.ts';

export {
  normalizeColor,
  normalizeInitials,
  normalizeUserName,
  SYSTEM_USER_NAME,
} from './user-fields.ts';
import { apiTokensTable, usersTable, type UserRow } from './tables.ts';
import { userCreated, userDeleted } from './audit-events.ts';
import {
  assertHuman,
  newUserRow,
  uniqueNameError,
  updateUser,
  type Role,
  type UserInput,
  type UserSettings,
  type UsersServiceDeps,
} from './user-changes.ts';

export type { Role, UserInput, UsersServiceDeps } from './user-changes.ts';

export const BOOTSTRAP_USER_NAME = 'bootstrap';

/** The user record the API returns. */
export type UserRecord = UserSettings &
  AccessLists &
  Pick<UserRow, 'id' | 'createdAt' | 'updatedAt'> & { avatarImageUrl?: string };

export function userAvatarUrl(
  user: Pick<UserRow, 'id' | 'avatarImageUpdatedAt'>,
): string | undefined {
  if (!user.avatarImageUpdatedAt) return undefined;
  return `/auth/users/${user.id}/avatar?v=${Date.parse(user.avatarImageUpdatedAt)}`;
}

/** The users with these ids (nulls and repeats skipped), by id, in one query. */
export async function usersById(
  store: Store,
  ids: Iterable<string | null>,
): Promise<Map<string, UserRow>> {
  const wanted = [...new Set([...ids].filter((id): id is string => id !== null))];
  if (wanted.length === 0) return new Map();
  return new Map((await store.table(usersTable).getMany(wanted)).map((user) => [user.id, user]));
}

export function toUserRecord(row: UserRow): UserRecord {
  const avatarImageUrl = userAvatarUrl(row);
  return {
    id: row.id,
    name: row.name,
    role: row.role as Role,
    avatarInitials: row.avatarInitials,
    avatarColor: row.avatarColor,
    ...(avatarImageUrl ? { avatarImageUrl } : {}),
    ...accessLists(row),
    llmAccess: row.llmAccess,
    llmMonthlyTokenLimit: row.llmMonthlyTokenLimit,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/**
 * The user, locked until `tx` ends (404 when gone, 403 for the system account). Everything that
 * adds a row belonging to a user (token, invitation, device) takes this lock first, as deletion
 * does: the two take turns, so a deletion either sees the new row and removes it, or the addition
 * runs after it and finds no user. Without it a token issued while the user was being deleted
 * outlived its owner.
 */
export async function lockHuman(tx: Store, id: string): Promise<UserRow> {
  return assertHuman(await tx.table(usersTable).getForUpdate(id));
}

/**
 * The authenticated caller's own row, locked like {@link lockHuman}, for what a user adds about
 * themselves (a device key, a thread subscription, notification settings). A caller deleted
 * while the request ran is 401: the token it authenticated with is gone too.
 */
export async function lockCaller(tx: Store, id: string): Promise<UserRow> {
  const row = await tx.table(usersTable).getForUpdate(id);
  if (!row) throw unauthorized();
  return row;
}

/** Removes what a plugin keeps about a user (avatar, invitations) inside the deletion's transaction. */
export type UserDeleteHook = (tx: Store, user: UserRow) => Promise<void>;

export function createUsersService({ access, clock, onDeleted, audit }: UsersServiceDeps) {
  // Plugins register these at setup, so the HTTP API and the CLI delete the same things.
  const deleteHooks: UserDeleteHook[] = [];
  return {
    /** Registers cleanup that runs in the same transaction as every user deletion. */
    onDelete(hook: UserDeleteHook): void {
      deleteHooks.push(hook);
    },

    async create(
      store: Store,
      input: UserInput & { name: string; role: Role },
      options: { system?: boolean } = {},
    ): Promise<UserRow> {
      const row = await newUserRow(store, { access, clock }, input, options);
      try {
        return await store.transaction(async (tx) => {
          const inserted = await tx.table(usersTable).insert(row);
          if (!options.system) await audit?.record(tx, userCreated(inserted));
          return inserted;
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw uniqueNameError(row.name);
        throw error;
      }
    },

    /**
     * Applies the fields present in `input`; omitted access lists stay as stored, even when stale.
     * `actorId` is the admin making the change: admins cannot change their own role.
     */
    async update(store: Store, id: string, input: UserInput, actorId?: string): Promise<UserRow> {
      return store.transaction((tx) =>
        updateUser({ access, clock, audit }, tx, id, input, actorId),
      );
    },

    /** Deletes the user and every token of theirs in one transaction. */
    async delete(store: Store, id: string, actorId?: string): Promise<UserRow> {
      if (actorId === id) throw forbidden('You cannot delete your own account.');
      const deleted = await store.transaction(async (tx) => {
        // Locked first, so concurrent token issues and invitation redeems wait (see lockHuman).
        const user = await lockHuman(tx, id);
        await tx.table(apiTokensTable).deleteWhere({ userId: id });
        for (const hook of deleteHooks) await hook(tx, user);
        await tx.table(usersTable).delete(id);
        await audit?.record(tx, userDeleted(user));
        return user;
      });
      onDeleted?.();
      return deleted;
    },

    async get(store: Store, id: string): Promise<UserRow> {
      const row = await store.table(usersTable).get(id);
      if (!row || row.system) throw notFound('User not found');
      return row;
    },

    /**
     * The account whose id is `idOrName`, else the one with that name (case-insensitive, as names
     * are unique): how the CLI names a user. An exact id wins over a name that happens to equal
     * it. 404 when neither matches. The system account is found like any other, so the operation
     * that follows refuses it with its own answer (403 to change it, 404 to show it).
     */
    async findByIdOrName(store: Store, idOrName: string): Promise<UserRow> {
      const users = store.table(usersTable);
      const row =
        (await users.get(idOrName)) ??
        (await users.findOne({ nameKey: idOrName.trim().toLowerCase() }));
      if (!row) throw notFound('User not found');
      return row;
    },

    /** Every account but the system account, ordered by name. */
    async list(store: Store): Promise<UserRow[]> {
      const rows = await store.table(usersTable).find({
        where: { system: false },
        orderBy: [
          ['nameKey', 'asc'],
          ['id', 'asc'],
        ],
      });
      return rows;
    },

    warnings: (store: Store, users: readonly UserRow[]) => access.warnings(store, users),
    lockHuman,
  };
}

export type UsersService = ReturnType<typeof createUsersService>;
