/**
 * The key that signs the sign-in cookie: 32 random bytes in a row of the database, made by the
 * first start that finds none. Every instance on the database reads the same row, so a sign-in
 * started on one instance finishes on another; nothing of it is in the code or the config. The
 * read cache keeps the row until it changes, and the imported key is kept beside it.
 */
import type { ReadCache } from '../../kernel/cache.ts';
import type { Clock } from '../../kernel/clock.ts';
import { base64url } from '../../kernel/identity/secrets.ts';
import { DEFAULT_TENANT_ID } from '../../kernel/identity/tenants.ts';
import { isUniqueViolation, type Store } from '../../kernel/storage/contract.ts';
import { importCookieKey } from './pending.ts';
import { COOKIE_KEY_ID, ssoKeysTable } from './tables.ts';

/** The stored secret, made now if there is none (of two instances making it, the first wins). */
async function loadOrCreate(store: Store, clock: Clock): Promise<string> {
  const keys = store.table(ssoKeysTable);
  const found = await keys.get(COOKIE_KEY_ID);
  if (found) return found.secret;
  const secret = base64url(crypto.getRandomValues(new Uint8Array(32)));
  try {
    await keys.insert({ id: COOKIE_KEY_ID, secret, createdAt: clock.iso() });
    return secret;
  } catch (error) {
    const winner = isUniqueViolation(error) ? await keys.get(COOKIE_KEY_ID) : null;
    if (winner) return winner.secret;
    throw error;
  }
}

/** `key()`: the HMAC key of the hub's database, as `storage` reaches it now. */
export function createCookieKeys(deps: {
  storage: (tenantId: string) => Store;
  cache: ReadCache;
  clock: Clock;
}): { key(): Promise<CryptoKey> } {
  let imported: { secret: string; key: Promise<CryptoKey> } | null = null;
  return {
    async key() {
      const store = deps.storage(DEFAULT_TENANT_ID);
      const secret = await deps.cache.read(
        store,
        `sso:cookie-key:${DEFAULT_TENANT_ID}`,
        [ssoKeysTable],
        () => loadOrCreate(store, deps.clock),
        () => 200,
      );
      if (imported?.secret !== secret) imported = { secret, key: importCookieKey(secret) };
      return imported.key;
    },
  };
}
