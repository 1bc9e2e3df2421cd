/**
 * The history budget: the bytes of revisions kept per author and per tenant
 * (`history.maxBytesPerUser`, `history.maxBytesPerTenant`), in usage counters
 * (`history_usage`). Every revision records its size. A change is refused (409, naming the limit)
 * when its author's or the tenant's usage has reached the limit before it starts; deletions are
 * never refused.
 *
 * Removals (pruning, the per-record limit, a purge) take their sizes off the counters in their own
 * transaction, and so do the changes that run in a transaction anyway. The one-statement edit and
 * the grouped create — the write hot path — would pay a counter write each (on PostgreSQL with
 * synchronous commits that halved the shared bench's update-request), so this process adds their
 * sizes to a ledger once they have committed and writes the ledger to the counters every second.
 * Checks read the counters at most once a second per tenant and add what the ledger still holds.
 * So what other processes added shows up within about two seconds, concurrent changes may each
 * pass a check (the usage ends above the limit by what they add), and a process that dies loses
 * at most its last second of additions (the usage is then lower than it should be, never higher).
 *
 * Revisions written before sizes were kept have size 0: never counted, never taken off.
 */
import { conflict } from '../../../kernel/errors.ts';
import type { HistoryConfig } from '../../../kernel/config/sections.ts';
import type { Store } from '../../../kernel/storage/contract.ts';
import { historyUsageTable, USAGE_SHARDS, type RevisionRow } from './tables.ts';

const userScope = (userId: string) => `u:${userId}`;
const tenantScope = (tenantId: string) => `t:${tenantId}`;
const shardIds = (scope: string) =>
  Array.from({ length: USAGE_SHARDS }, (_, shard) => `${scope}:${shard}`);
const randomShard = () => Math.floor(Math.random() * USAGE_SHARDS);

/** How long a counter read answers checks. */
const READ_TTL_MS = 1000;
/** How often the ledger is written to the counters. */
export const FLUSH_INTERVAL_MS = 1000;

/** Adds `deltas` (scope → bytes) to one shard of each scope's counters, in `tx`, in id order. */
async function addToCounters(tx: Store, deltas: ReadonlyMap<string, number>): Promise<void> {
  const shard = randomShard();
  const counters = tx.table(historyUsageTable);
  for (const scope of [...deltas.keys()].sort()) {
    const id = `${scope}:${shard}`;
    await counters.increment(id, { bytes: deltas.get(scope)! }, { id, bytes: 0 });
  }
}

/** The scopes a revision by `actorId` counts in: the tenant's, and its author's. */
function scopesOf(tenantId: string, actorId: string | null): string[] {
  return [tenantScope(tenantId), ...(actorId === null ? [] : [userScope(actorId)])];
}

/**
 * Adds (`sign` 1) or takes off (-1) the sizes of `revisions` to their authors' and the tenant's
 * counters, in the caller's transaction.
 */
export async function tallyRevisions(
  tx: Store,
  revisions: readonly Pick<RevisionRow, 'actorId' | 'size'>[],
  sign: 1 | -1,
): Promise<void> {
  const deltas = new Map<string, number>();
  for (const { actorId, size } of revisions)
    if (size)
      for (const scope of scopesOf(tx.tenantId ?? '', actorId))
        deltas.set(scope, (deltas.get(scope) ?? 0) + sign * size);
  if (deltas.size > 0) await addToCounters(tx, deltas);
}

export type UsageLedger = ReturnType<typeof createUsageLedger>;

type Deltas = Map<string, number>;

function addAll(into: Deltas, from: ReadonlyMap<string, number>): void {
  for (const [scope, bytes] of from) into.set(scope, (into.get(scope) ?? 0) + bytes);
}

/** One process's ledger: what is not yet written to the counters, and what was read of them. */
interface Ledger {
  readonly storage: (tenantId: string) => Store;
  /** Per tenant: bytes per scope not yet written, and those being written now. */
  readonly pending: Map<string, Deltas>;
  readonly writing: Map<string, Deltas>;
  /** Per tenant and scope: the counters' sum as read (plus what this process wrote since). */
  readonly read: Map<string, { bytes: number; at: number }>;
  // A read is never queued behind a write of the ledger: a check runs inside the change's
  // transaction, and the write needs a transaction of its own (SQLite's one writer connection, a
  // pooled connection), so waiting for it there could wait forever. Instead a read remembers the
  // writes it may have raced: one that began and ended while no write was under way is exact and
  // answers checks for a second; one that overlapped a write may or may not hold its bytes, so it
  // answers only its own check (counting the write's bytes once more at most) and is not kept.
  writes: number;
  writesUnderWay: number;
  /** Writes of the ledger take turns with each other (never with reads). */
  writeTurn: Promise<unknown>;
}

const key = (tenantId: string, scope: string) => `${tenantId}\n${scope}`;

const unwritten = (l: Ledger, tenantId: string, scope: string) =>
  (l.pending.get(tenantId)?.get(scope) ?? 0) + (l.writing.get(tenantId)?.get(scope) ?? 0);

/** The counters' sums of `scopes`, each from the cache or read now (then cached when exact). */
async function readCounters(
  l: Ledger,
  store: Store,
  tenantId: string,
  scopes: readonly string[],
): Promise<Map<string, number>> {
  const now = Date.now();
  const sums = new Map<string, number>();
  const stale: string[] = [];
  for (const scope of scopes) {
    const entry = l.read.get(key(tenantId, scope));
    if (entry && now - entry.at < READ_TTL_MS) sums.set(scope, entry.bytes);
    else stale.push(scope);
  }
  if (stale.length === 0) return sums;
  const before = l.writes;
  const quiet = l.writesUnderWay === 0;
  const rows = await store.table(historyUsageTable).getMany(stale.flatMap(shardIds));
  const exact = quiet && l.writes === before;
  for (const scope of stale) {
    const bytes = rows
      .filter((row) => row.id.startsWith(`${scope}:`))
      .reduce((sum, row) => sum + row.bytes, 0);
    sums.set(scope, bytes);
    if (exact) l.read.set(key(tenantId, scope), { bytes, at: now });
  }
  return sums;
}

async function writeTenant(l: Ledger, tenantId: string): Promise<void> {
  const deltas = l.pending.get(tenantId);
  if (!deltas) return;
  l.pending.delete(tenantId);
  l.writing.set(tenantId, deltas);
  l.writes += 1;
  l.writesUnderWay += 1;
  try {
    await l.storage(tenantId).transaction((tx) => addToCounters(tx, deltas));
    for (const [scope, bytes] of deltas) {
      const known = l.read.get(key(tenantId, scope));
      if (known) known.bytes += bytes;
    }
  } catch {
    // Kept for the next write, with what came meanwhile.
    const next = l.pending.get(tenantId) ?? new Map<string, number>();
    addAll(next, deltas);
    l.pending.set(tenantId, next);
  } finally {
    l.writing.delete(tenantId);
    l.writes += 1;
    l.writesUnderWay -= 1;
  }
}

/**
 * The ledger of one hub process (see the top of this file); `storage` is the tenant's store of
 * the moment, through which the ledger is written.
 */
export function createUsageLedger(storage: (tenantId: string) => Store) {
  const l: Ledger = {
    storage,
    pending: new Map(),
    writing: new Map(),
    read: new Map(),
    writes: 0,
    writesUnderWay: 0,
    writeTurn: Promise.resolve(),
  };
  return {
    /** Counts a committed revision of `bytes` by `actorId` in the store's tenant. */
    add(store: Store, actorId: string | null, bytes: number): void {
      const tenantId = store.tenantId ?? '';
      const deltas = l.pending.get(tenantId) ?? new Map<string, number>();
      for (const scope of scopesOf(tenantId, actorId))
        deltas.set(scope, (deltas.get(scope) ?? 0) + bytes);
      l.pending.set(tenantId, deltas);
    },

    /** The bytes of history kept for `userId` (0 without one) and for the store's tenant. */
    async usage(store: Store, userId: string | null): Promise<{ user: number; tenant: number }> {
      const tenantId = store.tenantId ?? '';
      const sums = await readCounters(l, store, tenantId, scopesOf(tenantId, userId));
      const total = (scope: string) =>
        Math.max(0, (sums.get(scope) ?? 0) + unwritten(l, tenantId, scope));
      return {
        tenant: total(tenantScope(tenantId)),
        user: userId === null ? 0 : total(userScope(userId)),
      };
    },

    /** Forgets what was read of the tenant's counters (after a purge took bytes off them). */
    forget(tenantId: string | null): void {
      const prefix = key(tenantId ?? '', '');
      for (const name of [...l.read.keys()]) if (name.startsWith(prefix)) l.read.delete(name);
    },

    /** Writes the ledger to the counters; a tenant whose write failed is tried again next time. */
    flush(): Promise<void> {
      const next = l.writeTurn.then(async () => {
        for (const tenantId of [...l.pending.keys()]) await writeTenant(l, tenantId);
      });
      l.writeTurn = next.catch(() => undefined);
      return next;
    },
  };
}

/**
 * 409 naming the limit when `userId`'s history (or the tenant's) has reached its budget: a change
 * by them would keep more.
 */
export async function assertHistoryBudget(
  store: Store,
  ledger: UsageLedger,
  config: HistoryConfig,
  userId: string | null,
): Promise<void> {
  const { maxBytesPerUser: perUser, maxBytesPerTenant: perTenant } = config;
  if (perUser === 0 && perTenant === 0) return;
  const usage = await ledger.usage(store, perUser === 0 ? null : userId);
  if (perUser > 0 && userId !== null && usage.user >= perUser)
    throw conflict(
      `history: ${usage.user} of ${perUser} bytes of revisions kept for this user ` +
        '(history.maxBytesPerUser); no change can be saved until an admin purges history or ' +
        'raises the limit, or older revisions expire.',
    );
  if (perTenant > 0 && usage.tenant >= perTenant)
    throw conflict(
      `history: ${usage.tenant} of ${perTenant} bytes of revisions kept in this tenant ` +
        '(history.maxBytesPerTenant); no change can be saved until an admin purges history or ' +
        'raises the limit, or older revisions expire.',
    );
}
