/**
 * What a store carries besides its tenant: the context of the one request or command it was made
 * for. The pipeline makes one per request (kernel/http/tenant.ts, `requestContext` in cache.ts),
 * the CLI passes {@link CLI_CONTEXT} where it makes a command's store, and everything else (jobs,
 * start-up, event subscribers) gets {@link NO_CONTEXT}. The driver's `forTenant(tenantId,
 * context)` sets it, and a transaction opened on the store hands it on to the transaction's store.
 *
 * Nothing else carries it: no wrapper around the store, no value of the process. So who acts is
 * read from the store that writes (`store.context.audit`), and a store made without a context says
 * "no one known". The audit types live here, not in audit.ts, because the storage contract names
 * this type and audit.ts names the store (a type import either way would close a circle).
 */

export interface AuditActor {
  id: string;
  name: string;
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

export interface StoreContext {
  /** Who and from where, for the audit log and the history; null when no one is known. */
  readonly audit: AuditScope | null;
  /**
   * A request's store only: when the request arrived (an `arrivalMark()` of storage/batched.ts),
   * so its cached lookups may share one proof that the change stamps are current (kernel/cache.ts).
   * Null for any other store: a job's or a command's outlives any proof.
   */
  readonly arrival: number | null;
  /**
   * The proof the request's first cached lookup asked for, kept for its later lookups; written by
   * the read cache only, and only on a context with an arrival.
   */
  proven?: boolean | Promise<boolean>;
}

/** The context of a store made for no request and no command. */
export const NO_CONTEXT: StoreContext = Object.freeze({ audit: null, arrival: null });

/** The scope of a command-line run: no actor, `via: "cli"`. */
export const CLI_AUDIT_SCOPE: AuditScope = {
  requestId: null,
  ip: null,
  actor: () => null,
  via: 'cli',
};

/** The context of every store a CLI command makes: what it changes is the command line's doing. */
export const CLI_CONTEXT: StoreContext = Object.freeze({ audit: CLI_AUDIT_SCOPE, arrival: null });

/**
 * A context that names who acts and shares no request's proof: for a store a handler opens beside
 * its request's (another tenant's, say), and for an event recorded on a scope's behalf.
 */
export const actingAs = (audit: AuditScope | null): StoreContext => ({ audit, arrival: null });
