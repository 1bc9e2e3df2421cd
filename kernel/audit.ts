/**
 * The kernel's side of the audit log: where the kernel (users, tokens, tenants, config reload) and
 * plugins hand over "who did what", without importing the plugin that stores it. The `audit`
 * plugin registers the one recorder at setup; until it has (or in a hub without it) recording
 * does nothing.
 *
 * Who and from where are not passed by every caller: the request pipeline opens a scope per
 * request (its id, the client's address, the authenticated user once known) and the CLI opens
 * one that says `via: "cli"`. A record made inside a scope takes those from it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Store } from './storage/contract.ts';

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
  /** Records the event with `store`; a no-op until a recorder is registered. */
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

const scopes = new AsyncLocalStorage<AuditScope>();

/** Runs `fn` with `scope` as the acting context of every event it records. */
export function withAuditScope<R>(scope: AuditScope, fn: () => R): R {
  return scopes.run(scope, fn);
}

/** The scope of the work in progress, or null outside any. */
export function currentAuditScope(): AuditScope | null {
  return scopes.getStore() ?? null;
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
      if (recorder) await recorder(store, input, currentAuditScope());
    },
    register(next) {
      recorder = next;
    },
  };
}
