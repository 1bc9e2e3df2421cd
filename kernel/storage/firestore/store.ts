/**
 * The contract's Store on Firestore, and transactions: each attempt stages its writes, hands them
 * to Firestore after the last read, and commits; an attempt that loses a race (Firestore's ABORTED,
 * or a row-lock deadlock in this process) is run again from fresh reads.
 */
import { StorageError, type Store } from '../contract.ts';
import { NO_CONTEXT, type StoreContext } from '../context.ts';
import type { Table } from '../table.ts';
import { flush, uniqueError, type TxState } from './session.ts';
import { countChanges } from './change-counts.ts';
import type { FirestoreContext, Gate } from './gate.ts';
import { firestoreTableApi } from './table-api.ts';

/** How often a transaction that lost a race is run in total before the conflict reaches the caller. */
const CONFLICT_ATTEMPTS = 8;

/** gRPC status codes the Firestore client reports. */
const ALREADY_EXISTS = 6;
const ABORTED = 10;
const OUTAGE = new Set([4, 14]); // DEADLINE_EXCEEDED, UNAVAILABLE

/** Firestore could not be reached or did not answer in time (raw from the client). */
function isOutage(error: unknown): boolean {
  const e = error as { code?: unknown; message?: string };
  return (
    OUTAGE.has(e?.code as number) ||
    /ECONNREFUSED|No connection established/i.test(e?.message ?? '')
  );
}

/**
 * A call failed because Firestore stalled or cannot be reached: what trips the driver's circuit
 * breaker. Our own deadline gives an `unavailable` StorageError; the client's, a gRPC status.
 */
export function isFirestoreStall(error: unknown): boolean {
  return (error instanceof StorageError && error.code === 'unavailable') || isOutage(error);
}

/** Turns Firestore errors into StorageErrors; anything else is a bug and passes through. */
export function mapFirestoreError(error: unknown, table?: string): never {
  if (error instanceof StorageError || error instanceof TypeError) throw error;
  const e = error as { code?: unknown; message?: string };
  const where = table ? { table } : {};
  if (e?.code === ALREADY_EXISTS)
    throw new StorageError('unique', `Duplicate value in ${table ?? 'a table'}`, {
      ...where,
      cause: error,
    });
  if (e?.code === ABORTED)
    throw new StorageError('conflict', 'The write conflicted with a concurrent transaction', {
      ...where,
      cause: error,
    });
  if (isOutage(error)) {
    throw new StorageError('unavailable', 'The database cannot be reached', {
      ...where,
      cause: error,
    });
  }
  // Firestore's own limits (a document over 1 MiB, say) are about the value, not an outage.
  if (e?.code === 3 && /exceeds|too (big|large)|maximum/i.test(e.message ?? '')) {
    throw new StorageError('invalid', 'The value is too large to store', {
      ...where,
      cause: error,
    });
  }
  throw error;
}

/** Which staged create failed its precondition: Firestore's error does not say, so look. */
async function explainDuplicate(
  ctx: FirestoreContext,
  state: TxState | undefined,
  error: unknown,
): Promise<StorageError> {
  const creates = [...(state?.staged.values() ?? [])].filter(
    (entry) => entry.create && entry.constraint,
  );
  const snaps = creates.length
    ? await ctx.db.getAll(...creates.map((entry) => entry.ref)).catch(() => [])
    : [];
  const taken = creates.find((_, i) => snaps[i]?.exists);
  const constraint = taken?.constraint ?? creates[0]?.constraint;
  return constraint
    ? uniqueError(constraint.table, constraint.columns, error)
    : new StorageError('unique', 'Duplicate value', { cause: error });
}

function asStorageError(error: unknown): unknown {
  try {
    mapFirestoreError(error);
  } catch (mapped) {
    return mapped;
  }
}

async function runTransaction<R>(
  ctx: FirestoreContext,
  body: (state: TxState) => Promise<R>,
): Promise<R> {
  for (let attempt = 1; ; attempt++) {
    const owner = ctx.locks.owner();
    let state: TxState | undefined;
    try {
      return await ctx.db.runTransaction(
        async (tx) => {
          state = { tx, owner, staged: new Map(), locked: new Map() };
          const result = await body(state);
          flush(state);
          countChanges(ctx.db, state);
          return result;
        },
        // Retries are ours: the row locks must be released between attempts.
        { maxAttempts: 1 },
      );
    } catch (error) {
      const mapped = asStorageError(error);
      if (mapped instanceof StorageError && mapped.code === 'unique' && !mapped.table)
        throw await explainDuplicate(ctx, state, error);
      if (
        !(mapped instanceof StorageError) ||
        mapped.code !== 'conflict' ||
        attempt >= CONFLICT_ATTEMPTS
      )
        throw mapped;
    } finally {
      ctx.locks.releaseAll(owner);
    }
    // A short random pause, so the contenders do not collide again in lockstep.
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
  }
}

/**
 * A store bound to a tenant (or unscoped when null), outside or inside a transaction attempt; an
 * attempt's store carries this store's `context`.
 */
export function createFirestoreStore(
  ctx: FirestoreContext,
  tenantId: string | null,
  state: TxState | null = null,
  context: StoreContext = NO_CONTEXT,
): Store {
  const store: Store = {
    tenantId,
    context,
    // Only top-level calls pass the gate: work inside an open transaction must be allowed to finish.
    table: <T extends Table>(table: T) =>
      guarded(
        firestoreTableApi({ ctx, tenantId, state, store }, table),
        table.name,
        state ? null : ctx.gate,
      ) as any,
    async transaction(fn) {
      if (state) return fn(store);
      return ctx.gate.run(() =>
        runTransaction(ctx, (attempt) => fn(createFirestoreStore(ctx, tenantId, attempt, context))),
      );
    },
    insertAll(batches) {
      return store.transaction(async (tx) => {
        for (const { table, rows } of batches) await tx.table(table).insertMany(rows as any);
      });
    },
  };
  return store;
}

/** Maps errors of every call, so callers only ever see StorageErrors for storage failures. */
function guarded<A extends object>(api: A, table: string, gate: Gate | null): A {
  const out: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(api)) {
    const call = (...args: unknown[]) => (method as (...a: unknown[]) => Promise<unknown>)(...args);
    out[name] = async (...args: unknown[]) => {
      try {
        return await (gate ? gate.run(() => call(...args)) : call(...args));
      } catch (error) {
        return mapFirestoreError(error, table);
      }
    };
  }
  return out as A;
}
