/**
 * Open notice streams end when their token stops working: revoked or deleted (admin route, CLI,
 * another hub instance) or its user deleted. Bearer auth runs once, when a stream opens, so the
 * streams' tokens are checked again here, every {@link RECHECK_MS} and at once after this process
 * revoked something:
 *
 * - one check per tenant covers every distinct token of its open streams (one query for the
 *   tokens and one for their users, however many streams share them);
 * - where the database tells of other processes' writes (SQLite, PostgreSQL's change feed), a
 *   token already found active is not checked again until a token or user row changed somewhere,
 *   so an idle hub asks nothing; on MySQL and Firestore every tick asks.
 *
 * A stream whose token no longer authenticates gets `: unauthorized` and ends; the client's
 * reconnect then meets the 401. A check that fails (the database is down) ends nothing: the
 * streams are checked again on the next tick.
 */
import type { TokensService } from '../../kernel/identity/tokens.ts';
import type { Logger } from '../../kernel/log.ts';
import { unavailableDependency } from '../../kernel/outage.ts';
import type { Store } from '../../kernel/storage/contract.ts';
import type { StreamRegistry } from './stream.ts';

/** How often open streams' tokens are checked: a revocation ends them well within a second. */
export const RECHECK_MS = 500;

export interface TokenWatchDeps {
  registry: StreamRegistry;
  storage(tenantId: string): Store;
  tokens: Pick<TokensService, 'activeHashes' | 'stamp' | 'onRevoked'>;
  log: Logger;
  intervalMs?: number;
}

export interface TokenWatch {
  /** Checks now (or right after the check in progress); resolves when that check is done. */
  check(): Promise<void>;
  close(): void;
}

export function watchStreamTokens(deps: TokenWatchDeps): TokenWatch {
  /** Per tenant: the stamp at which each token hash was last found active. */
  const verified = new Map<string, Map<string, number>>();
  let running: Promise<void> | null = null;
  let again = false;

  async function checkTenant(tenantId: string, hashes: Set<string>): Promise<void> {
    const store = deps.storage(tenantId);
    // Taken before reading: a revocation that lands during the read moves it, so it is seen next time.
    const stamp = await deps.tokens.stamp(store);
    const known = verified.get(tenantId);
    const stale = [...hashes].filter((hash) => stamp === null || known?.get(hash) !== stamp);
    if (stale.length === 0) return;
    const active = await deps.tokens.activeHashes(store, stale);
    const gone = new Set(stale.filter((hash) => !active.has(hash)));
    if (gone.size > 0) deps.registry.endTokens(tenantId, gone);
    // Only the hashes still open are remembered, so the map never outgrows the streams.
    const next = new Map<string, number>();
    if (stamp !== null) {
      for (const hash of hashes) {
        if (gone.has(hash)) continue;
        const at = active.has(hash) ? stamp : known?.get(hash);
        if (at !== undefined) next.set(hash, at);
      }
    }
    verified.set(tenantId, next);
  }

  async function pass(): Promise<void> {
    const byTenant = deps.registry.tokens();
    for (const tenantId of verified.keys()) if (!byTenant.has(tenantId)) verified.delete(tenantId);
    for (const [tenantId, hashes] of byTenant) {
      try {
        await checkTenant(tenantId, hashes);
      } catch (error) {
        // An outage is logged once by the kernel; the streams stay and are checked next tick.
        if (!unavailableDependency(error))
          deps.log.warn('Could not check the tokens of open notice streams', {
            error: String(error),
          });
      }
    }
  }

  function check(): Promise<void> {
    if (running) {
      // A revocation during a pass may have been read before it landed: run once more after it.
      again = true;
      return running;
    }
    running = (async () => {
      try {
        do {
          again = false;
          await pass();
        } while (again);
      } finally {
        running = null;
      }
    })();
    return running;
  }

  const timer = setInterval(() => {
    if (deps.registry.size() > 0) void check();
  }, deps.intervalMs ?? RECHECK_MS);
  // Never keeps a process alive by itself (Node timers have unref, Deno's are numbers).
  (timer as { unref?: () => void }).unref?.();
  const unsubscribe = deps.tokens.onRevoked(() => {
    if (deps.registry.size() > 0) void check();
  });
  return {
    check,
    close() {
      clearInterval(timer);
      unsubscribe();
    },
  };
}
