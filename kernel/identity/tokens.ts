/**
 * API tokens: issue (secret shown once), list, revoke, delete, and announce revocations to this
 * process's long-lived connections (a notice stream). Look-up by secret and the checks a stream
 * repeats are `token-auth.ts`'s; the service returns both halves as one.
 */
import { badRequest, notFound } from '../errors.ts';
import type { AuditSink } from '../audit.ts';
import type { Clock } from '../clock.ts';
import type { ReadCache } from '../cache.ts';
import type { Store } from '../storage/contract.ts';
import { issueSecret, newId, type IssuedSecret } from './secrets.ts';
import { apiTokensTable, type ApiTokenRow, type UserRow } from './tables.ts';
import { hasUnsafeNameChars, UNSAFE_NAME_MESSAGE } from '../text.ts';
import { lockHuman } from './users.ts';
import { tokenEvent } from './audit-events.ts';
import { createTokenAuth } from './token-auth.ts';

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

export { LAST_USED_RESOLUTION_MS, tokenExpired, type Authenticated } from './token-auth.ts';

/**
 * Tokens (never secrets), newest first, optionally of one user; with `page`, at most `limit`
 * of them after the position of `after` (a keyset page).
 */
async function listTokens(
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
}

async function getToken(store: Store, id: string): Promise<ApiTokenRow> {
  const row = await store.table(apiTokensTable).get(id);
  if (!row) throw notFound('Token not found');
  return row;
}

/** Revoking and deleting tokens, and telling this process's listeners that tokens stopped working. */
function revocations({ clock, audit }: { clock: Clock; audit?: AuditSink | undefined }) {
  /** Called after this process revoked or deleted a token, or deleted a user (with its tokens). */
  const revokeListeners = new Set<() => void>();

  function announceRevoked(): void {
    for (const listener of revokeListeners) {
      try {
        listener();
      } catch {
        // A listener's failure must not fail the revocation that already happened.
      }
    }
  }

  return {
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
     * processes' revocations are not announced: `activeHashes` (`token-auth.ts`) finds them.
     */
    onRevoked(listener: () => void): () => void {
      revokeListeners.add(listener);
      return () => revokeListeners.delete(listener);
    },
    /** For the users service: a deleted user's tokens stopped working. */
    announceRevoked,
  };
}

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
  let defaultDays: DefaultTokenDays | null = null;

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

    list: listTokens,
    get: getToken,
    ...revocations({ clock, audit }),
    ...createTokenAuth({ clock, cache }),
  };
}

export type TokensService = ReturnType<typeof createTokensService>;
