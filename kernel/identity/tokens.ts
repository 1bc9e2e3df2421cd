/**
 * API tokens: issue (secret shown once), list, revoke, delete, and look-up by secret; and what a
 * long-lived connection (a notice stream) needs to learn that its token stopped working.
 */
import { badRequest, notFound } from '../errors.ts';
import type { AuditSink } from '../audit.ts';
import type { Clock } from '../clock.ts';
import type { ReadCache } from '../cache.ts';
import type { Store } from '../storage/contract.ts';
import { provenStamp } from '../storage/changes.ts';
import { issueSecret, newId, sha256Hex, type IssuedSecret } from './secrets.ts';
import { apiTokensTable, usersTable, type ApiTokenRow, type UserRow } from './tables.ts';
import { hasUnsafeNameChars, UNSAFE_NAME_MESSAGE } from '../text.ts';
import { lockHuman } from './users.ts';
import { tokenEvent } from './audit-events.ts';

export interface TokenRecord {
  id: string;
  userId: string | null;
  name: string;
  tokenPrefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  /** When the token stops working by itself; null: never. */
  expiresAt: string | null;
}

export function toTokenRecord(row: ApiTokenRow): TokenRecord {
  return {
    id: row.id,
    userId: row.userId,
    name: row.name,
    tokenPrefix: row.tokenPrefix,
    createdAt: row.createdAt,
    lastUsedAt: row.lastUsedAt,
    revokedAt: row.revokedAt,
    expiresAt: row.expiresAt,
  };
}

/** Days an admin's token for `user` lasts when the admin names none (null: forever); see sso. */
export type DefaultTokenDays = (store: Store, user: UserRow) => Promise<number | null>;

export function normalizeTokenName(raw: string): string {
  const name = raw.trim();
  if (!name) throw badRequest('name: Token name must not be empty.');
  if ([...name].length > 255) throw badRequest('name: Token name must be at most 255 characters.');
  if (hasUnsafeNameChars(name)) throw badRequest(`name: Token name ${UNSAFE_NAME_MESSAGE}.`);
  return name;
}

/** `lastUsedAt` is refreshed at most this often, so authentication is not a write on every request. */
export const LAST_USED_RESOLUTION_MS = 60_000;

export interface Authenticated {
  user: UserRow;
  token: ApiTokenRow;
}

/** Rough bytes of a cached token and user (strings are UTF-16 in memory). */
const authBytes = (found: Authenticated | null) =>
  found ? 2 * JSON.stringify(found).length : null;

function freeze(found: Authenticated | null): Authenticated | null {
  if (!found) return null;
  for (const value of Object.values(found.user)) if (Array.isArray(value)) Object.freeze(value);
  Object.freeze(found.user);
  Object.freeze(found.token);
  return Object.freeze(found);
}

/** Tokens whose last touch this process remembers; past this many it starts afresh. */
const TOUCHED_MAX = 10_000;

/** Token hashes per `in` condition of {@link activeHashes}. */
const HASH_CHUNK = 500;

/** Whether a stored token may authenticate at all (its owner must still exist too). */
const usable = (token: ApiTokenRow): token is ApiTokenRow & { userId: string } =>
  token.revokedAt === null && token.userId !== null;

/** Whether the token's own expiry has passed: checked against the clock on every use. */
export const tokenExpired = (token: Pick<ApiTokenRow, 'expiresAt'>, now: Date): boolean =>
  token.expiresAt !== null && Date.parse(token.expiresAt) <= now.getTime();

export function createTokensService({
  clock,
  cache,
  audit,
}: {
  clock: Clock;
  cache?: ReadCache;
  /** Where issues, revocations and deletions are recorded, in their own transaction. */
  audit?: AuditSink;
}) {
  /** Token id → when this process last wrote its `lastUsedAt` (ms). */
  const touched = new Map<string, number>();
  let defaultDays: DefaultTokenDays | null = null;
  /** Called after this process revoked or deleted a token, or deleted a user (with its tokens). */
  const revokeListeners = new Set<() => void>();
  /** The active token with this hash and its owner, from the tables. */
  async function lookup(store: Store, hash: string): Promise<Authenticated | null> {
    const token = await store.table(apiTokensTable).findOne({ tokenHash: hash });
    if (!token || !usable(token)) return null;
    const user = await store.table(usersTable).get(token.userId);
    if (!user) return null;
    return { user, token };
  }

  function announceRevoked(): void {
    for (const listener of revokeListeners) {
      try {
        listener();
      } catch {
        // A listener's failure must not fail the revocation that already happened.
      }
    }
  }

  /**
   * Days a token an administrator gives `user` lasts when the administrator names none (null:
   * forever), as {@link DefaultTokenDays} registered it. Also an invitation's token.
   */
  async function defaultDaysFor(store: Store, user: UserRow): Promise<number | null> {
    return (await defaultDays?.(store, user)) ?? null;
  }

  /** Issues a token for a user the caller has already checked; returns the secret once. */
  async function issue(
    store: Store,
    user: UserRow,
    name: string,
    /** A secret chosen elsewhere (see `chosenSecret`), instead of a new random one. */
    chosen?: IssuedSecret,
    /** When the token stops working by itself; omitted: never. */
    expiresAt?: string,
  ): Promise<{ token: ApiTokenRow; secret: string }> {
    const issued = chosen ?? (await issueSecret('hbk'));
    const row: ApiTokenRow = {
      id: newId(),
      userId: user.id,
      name: normalizeTokenName(name),
      tokenHash: issued.hash,
      tokenPrefix: issued.prefix,
      createdAt: clock.iso(),
      lastUsedAt: null,
      revokedAt: null,
      expiresAt: expiresAt ?? null,
    };
    await store.transaction(async (tx) => {
      await tx.table(apiTokensTable).insert(row);
      await audit?.record(tx, tokenEvent('token.created', row, user));
    });
    return { token: row, secret: issued.secret };
  }

  /**
   * The active token with the secret of this sha256, and its owner. With a cache, a token and its
   * user are kept until a row of either table changes in any process (revoked, deleted, access
   * changed), so a hot token costs no query and a change still applies on the very next request.
   * The result is frozen.
   */
  async function authenticateHash(store: Store, hash: string): Promise<Authenticated | null> {
    const found = !cache
      ? await lookup(store, hash)
      : await cache.read(
          store,
          `auth:${store.tenantId}:${hash}`,
          [apiTokensTable, usersTable],
          async () => freeze(await lookup(store, hash)),
          authBytes,
        );
    // A cached token stays valid by change stamps, which time does not move: the expiry is
    // checked here, at every request.
    return found && tokenExpired(found.token, clock.now()) ? null : found;
  }

  return {
    issue,

    /** Registers what decides the lifetime of an administrator's token that names none. */
    setDefaultDays(decide: DefaultTokenDays): void {
      defaultDays = decide;
    },

    defaultDaysFor,

    /**
     * Issues a token for the user with this id (404 unknown, 403 system account), in a transaction
     * that holds the user's row lock, so it cannot interleave with the user's deletion. The HTTP
     * route and the CLI both issue through here. `expiresInDays`: a lifetime, null for none, or
     * undefined for the registered default ({@link DefaultTokenDays}).
     */
    async issueFor(
      store: Store,
      userId: string,
      name: string,
      expiresInDays?: number | null,
    ): Promise<{ user: UserRow; token: ApiTokenRow; secret: string }> {
      // The name is checked before the transaction so a bad name never waits on the lock.
      const checked = normalizeTokenName(name);
      return store.transaction(async (tx) => {
        const user = await lockHuman(tx, userId);
        const days = expiresInDays !== undefined ? expiresInDays : await defaultDaysFor(tx, user);
        const expiresAt =
          days === null
            ? undefined
            : new Date(clock.now().getTime() + days * 86_400_000).toISOString();
        return { user, ...(await issue(tx, user, checked, undefined, expiresAt)) };
      });
    },

    /**
     * Tokens (never secrets), newest first, optionally of one user; with `page`, at most `limit`
     * of them after the position of `after` (a keyset page).
     */
    async list(
      store: Store,
      userId?: string,
      page?: { limit: number; after?: Pick<ApiTokenRow, 'createdAt' | 'id'> | undefined },
    ): Promise<ApiTokenRow[]> {
      return store.table(apiTokensTable).find({
        ...(userId ? { where: { userId } } : {}),
        orderBy: [
          ['createdAt', 'desc'],
          ['id', 'asc'],
        ],
        ...(page ? { limit: page.limit } : {}),
        ...(page?.after ? { after: page.after } : {}),
      });
    },

    async get(store: Store, id: string): Promise<ApiTokenRow> {
      const row = await store.table(apiTokensTable).get(id);
      if (!row) throw notFound('Token not found');
      return row;
    },

    /** Sets `revokedAt`; a revoked token answers 401 from then on. Returns null when not active. */
    async revoke(store: Store, id: string): Promise<ApiTokenRow | null> {
      const revoked = await store.transaction(async (tx) => {
        const tokens = tx.table(apiTokensTable);
        const row = await tokens.update(id, { revokedAt: clock.iso() }, { revokedAt: null });
        if (row) await audit?.record(tx, tokenEvent('token.revoked', row));
        return row;
      });
      if (revoked) announceRevoked();
      return revoked;
    },

    async delete(store: Store, id: string): Promise<boolean> {
      const deleted = await store.transaction(async (tx) => {
        const row = await tx.table(apiTokensTable).get(id);
        if (!row || !(await tx.table(apiTokensTable).delete(id))) return false;
        await audit?.record(tx, tokenEvent('token.deleted', row));
        return true;
      });
      if (deleted) announceRevoked();
      return deleted;
    },

    /**
     * Registers a listener called after this process revoked or deleted a token or deleted a user
     * (always after the change committed), so open streams can check their tokens at once. Other
     * processes' revocations are not announced: {@link activeHashes} finds them.
     */
    onRevoked(listener: () => void): () => void {
      revokeListeners.add(listener);
      return () => revokeListeners.delete(listener);
    },
    /** For the users service: a deleted user's tokens stopped working. */
    announceRevoked,

    /**
     * A value that stays the same while no token and no user changed in any process, so a caller
     * that checked tokens at this stamp need not check them again; null where the driver cannot
     * tell (MySQL, Firestore, a PostgreSQL listener not proven yet): check every time then.
     */
    async stamp(store: Store): Promise<number | null> {
      return provenStamp(store.changes, [apiTokensTable.name, usersTable.name]);
    },

    /**
     * Which of these token hashes still authenticate (the token is neither revoked nor deleted and
     * its user exists), by the same rule as {@link authenticateHash}: one query for the tokens and
     * one for their users per few hundred hashes, however many there are.
     */
    async activeHashes(store: Store, hashes: readonly string[]): Promise<Set<string>> {
      const active = new Set<string>();
      const unique = [...new Set(hashes)];
      for (let i = 0; i < unique.length; i += HASH_CHUNK) {
        const tokens = (
          await store
            .table(apiTokensTable)
            .find({ where: { tokenHash: { in: unique.slice(i, i + HASH_CHUNK) } } })
        )
          .filter(usable)
          .filter((token) => !tokenExpired(token, clock.now()));
        const users = new Set(
          (await store.table(usersTable).getMany([...new Set(tokens.map((t) => t.userId))])).map(
            (user) => user.id,
          ),
        );
        for (const token of tokens) if (users.has(token.userId)) active.add(token.tokenHash);
      }
      return active;
    },

    /** The active token and its owner for a presented secret, or null. */
    authenticate: (store: Store, secret: string) => authenticateHash(store, sha256Hex(secret)),
    authenticateHash,

    /**
     * Records use of a token, at most once per {@link LAST_USED_RESOLUTION_MS} per process.
     * `lastUsedAt` is an untracked column (it leaves cached tokens alone), so a cached token still
     * shows its old value: this process remembers its own writes instead.
     */
    async touch(store: Store, token: ApiTokenRow): Promise<void> {
      const now = clock.now();
      const known = Math.max(
        token.lastUsedAt ? Date.parse(token.lastUsedAt) : -Infinity,
        touched.get(token.id) ?? -Infinity,
      );
      if (now.getTime() - known < LAST_USED_RESOLUTION_MS) return;
      // Noted before the write, so the requests that arrive meanwhile do not write it too.
      if (touched.size >= TOUCHED_MAX) touched.clear();
      touched.set(token.id, now.getTime());
      await store.table(apiTokensTable).update(token.id, { lastUsedAt: now.toISOString() });
    },
  };
}

export type TokensService = ReturnType<typeof createTokensService>;
