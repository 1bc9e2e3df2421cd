/**
 * Who presents a token: a secret (or its hash) to its active token and owner, through the read
 * cache; which of many hashes still authenticate (for long-lived streams); and the throttled
 * `lastUsedAt` touch. Issuing, listing and revoking tokens is `tokens.ts`'s.
 */
import type { Clock } from '../clock.ts';
import type { ReadCache } from '../cache.ts';
import type { Store } from '../storage/contract.ts';
import { provenStamp } from '../storage/changes.ts';
import { sha256Hex } from './secrets.ts';
import { apiTokensTable, usersTable, type ApiTokenRow, type UserRow } from './tables.ts';

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

/** Token hashes per `in` condition of `activeHashes`. */
const HASH_CHUNK = 500;

/** Whether a stored token may authenticate at all (its owner must still exist too). */
const usable = (token: ApiTokenRow): token is ApiTokenRow & { userId: string } =>
  token.revokedAt === null && token.userId !== null;

/** Whether the token's own expiry has passed: checked against the clock on every use. */
export const tokenExpired = (token: Pick<ApiTokenRow, 'expiresAt'>, now: Date): boolean =>
  token.expiresAt !== null && Date.parse(token.expiresAt) <= now.getTime();

/** The active token with this hash and its owner, from the tables. */
async function lookup(store: Store, hash: string): Promise<Authenticated | null> {
  const token = await store.table(apiTokensTable).findOne({ tokenHash: hash });
  if (!token || !usable(token)) return null;
  const user = await store.table(usersTable).get(token.userId);
  if (!user) return null;
  return { user, token };
}

/**
 * Which of these token hashes still authenticate (the token is neither revoked, deleted nor
 * expired and its user exists), by the same rule as `authenticateHash`: one query for the tokens
 * and one for their users per few hundred hashes, however many there are.
 */
async function activeHashes(
  store: Store,
  hashes: readonly string[],
  now: () => Date,
): Promise<Set<string>> {
  const active = new Set<string>();
  const unique = [...new Set(hashes)];
  for (let i = 0; i < unique.length; i += HASH_CHUNK) {
    const tokens = (
      await store
        .table(apiTokensTable)
        .find({ where: { tokenHash: { in: unique.slice(i, i + HASH_CHUNK) } } })
    )
      .filter(usable)
      .filter((token) => !tokenExpired(token, now()));
    const users = new Set(
      (await store.table(usersTable).getMany([...new Set(tokens.map((t) => t.userId))])).map(
        (user) => user.id,
      ),
    );
    for (const token of tokens) if (users.has(token.userId)) active.add(token.tokenHash);
  }
  return active;
}

/** The token service's authentication half; `createTokensService` returns it with the rest. */
export function createTokenAuth({ clock, cache }: { clock: Clock; cache?: ReadCache | undefined }) {
  /** Token id → when this process last wrote its `lastUsedAt` (ms). */
  const touched = new Map<string, number>();

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
    /**
     * A value that stays the same while no token and no user changed in any process, so a caller
     * that checked tokens at this stamp need not check them again; null where the driver cannot
     * tell (MySQL, Firestore, a PostgreSQL listener not proven yet): check every time then.
     */
    async stamp(store: Store): Promise<number | null> {
      return provenStamp(store.changes, [apiTokensTable.name, usersTable.name]);
    },

    /** Which of these token hashes still authenticate (see {@link activeHashes}). */
    activeHashes: (store: Store, hashes: readonly string[]) =>
      activeHashes(store, hashes, () => clock.now()),

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
