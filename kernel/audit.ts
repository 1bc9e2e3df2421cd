/**
 * The kernel's side of the audit log: where the kernel (users, tokens, tenants, config reload) and
 * plugins hand over "who did what", without importing the plugin that stores it. The `audit`
 * plugin registers the one recorder at setup; until it has (or in a hub without it) recording
 * does nothing.
 *
 * Who and from where are not passed by every caller: they travel with the store, in its context
 * (storage/context.ts): the pipeline makes a scope per request (its id, the client's address, the
 * authenticated user once known) and the request's store carries it into every transaction opened
 * on it; a CLI command's stores carry `via: "cli"`. A record made with a store takes who and where
 * from `store.context.audit`.
 *
 * Not AsyncLocalStorage: on Node 20 one active instance makes every promise of the process pay a
 * hook, and the shared bench's reads ran a quarter to a third slower on PostgreSQL with it.
 */
import type { Store } from './storage/contract.ts';
import type { AuditActor, AuditScope } from './storage/context.ts';

export type { AuditActor, AuditScope } from './storage/context.ts';

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

/** Writes one event with the given store (inside the caller's transaction when it is one). */
export type AuditRecorder = (
  store: Store,
  input: AuditInput,
  scope: AuditScope | null,
) => Promise<void>;

export interface AuditSink {
  /**
   * Records the event with `store`, as the work of the scope its context carries
   * (`store.context.audit`); a no-op until a recorder is registered.
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

export function createAuditSink(): AuditSink {
  let recorder: AuditRecorder | null = null;
  return {
    async record(store, input) {
      if (recorder) await recorder(store, input, store.context.audit);
    },
    register(next) {
      recorder = next;
    },
  };
}
