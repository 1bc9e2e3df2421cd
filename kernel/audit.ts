/**
 * The kernel's side of the audit log: where the kernel (users, tokens, tenants, config reload) and
 * plugins hand over "who did what", without importing the plugin that stores it. The `audit`
 * plugin registers the one recorder at setup; until it has (or in a hub without it) recording
 * does nothing.
 *
 * Who and from where are not passed by every caller: they travel with the store. The request
 * pipeline makes a scope per request (its id, the client's address, the authenticated user once
 * known) and the request's store carries it ({@link scopedStore}), into every transaction opened
 * on it; a CLI command runs inside {@link withAuditScope}, which says `via: "cli"` for stores
 * that carry no scope. A record made with a store takes who and where from it.
 *
 * Not AsyncLocalStorage: on Node 20 one active instance makes every promise of the process pay a
 * hook, and the shared bench's reads ran a quarter to a third slower on PostgreSQL with it.
 */
import type { InsertBatch, Store, TableApi } from './storage/contract.ts';
import type { RowOfTable, Table } from './storage/table.ts';

export interface AuditActor {
  id: string;
  name: string;
}

export interface AuditTarget {
  kind: string;
  id: string;
  name: string;
}

/** One event as its author states it; time, actor, address and request come from the scope. */
export interface AuditInput {
  /** `<noun>.<verb>`, e.g. `user.created`. */
  action: string;
  target: AuditTarget;
  /** What changed; never a secret (no token, hash, invitation code or password). */
  details?: Record<string, unknown>;
  /** Overrides the scope's actor (an event published with its own actor id, say). */
  actor?: AuditActor | null;
}

/** Who is acting right now, as the pipeline or the CLI established it. */
export interface AuditScope {
  requestId: string | null;
  ip: string | null;
  /** Read when an event is recorded: authentication may happen after the scope opened. */
  actor(): AuditActor | null;
  /** `"cli"` for commands run on the server's machine. */
  via?: string;
}

/** Writes one event with the given store (inside the caller's transaction when it is one). */
export type AuditRecorder = (
  store: Store,
  input: AuditInput,
  scope: AuditScope | null,
) => Promise<void>;

export interface AuditSink {
  /**
   * Records the event with `store`, as the work of the scope it carries ({@link auditScopeOf});
   * a no-op until a recorder is registered.
   */
  record(store: Store, input: AuditInput): Promise<void>;
  /** The audit plugin's recorder (one per hub). */
  register(recorder: AuditRecorder): void;
}

/** Longest client address kept (a forwarded address comes from a header). */
export const IP_MAX = 64;
/** A client may name its request (`X-Request-Id`, up to 255 characters). */
export const REQUEST_ID_MAX = 255;

/** Where a scope's work came from, as the audit log and the history keep it. */
export const originOf = (scope: AuditScope | null) => ({
  ip: scope?.ip?.slice(0, IP_MAX) ?? null,
  requestId: scope?.requestId?.slice(0, REQUEST_ID_MAX) ?? null,
});

/** The scope of the command this process runs (one at a time), for stores that carry none. */
let ambient: AuditScope | null = null;

/**
 * `store`, carrying `scope` into every record made with it or with a transaction opened on it.
 * The pipeline makes one per request (`c.get('store')`); a handler that opens another store (say,
 * another tenant's) wraps it with the request's `c.get('auditScope')`.
 */
export function scopedStore(store: Store, scope: AuditScope): Store {
  return new ScopedStore(store, scope);
}

class ScopedStore implements Store {
  readonly tenantId: string | null;
  readonly changes?: Store['changes'];
  readonly scope: AuditScope;
  readonly #inner: Store;
  constructor(inner: Store, scope: AuditScope) {
    this.#inner = inner;
    this.scope = scope;
    this.tenantId = inner.tenantId;
    if (inner.changes) this.changes = inner.changes;
  }
  table<T extends Table>(table: T): TableApi<RowOfTable<T>> {
    return this.#inner.table(table);
  }
  transaction<R>(fn: (tx: Store) => Promise<R>): Promise<R> {
    return this.#inner.transaction((tx) => fn(new ScopedStore(tx, this.scope)));
  }
  insertAll(batches: readonly InsertBatch[]): Promise<void> {
    return this.#inner.insertAll(batches);
  }
}

/**
 * Runs `fn` (a CLI command: one at a time in its process) with `scope` as the acting context of
 * every record made with a store that carries no scope of its own.
 */
export async function withAuditScope<R>(scope: AuditScope, fn: () => Promise<R>): Promise<R> {
  const outer = ambient;
  ambient = scope;
  try {
    return await fn();
  } finally {
    ambient = outer;
  }
}

/** Who is acting through `store`: its request's scope, else the command's, else null. */
export function auditScopeOf(store: Store): AuditScope | null {
  return store instanceof ScopedStore ? store.scope : ambient;
}

/** The scope of a command-line run: no actor, `via: "cli"`. */
export const CLI_AUDIT_SCOPE: AuditScope = {
  requestId: null,
  ip: null,
  actor: () => null,
  via: 'cli',
};

export function createAuditSink(): AuditSink {
  let recorder: AuditRecorder | null = null;
  return {
    async record(store, input) {
      if (recorder) await recorder(store, input, auditScopeOf(store));
    },
    register(next) {
      recorder = next;
    },
  };
}
