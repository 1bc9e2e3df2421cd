/**
 * Console sessions: opened by a sign-in (with a token, or with the one-time code of a single
 * sign-on), found by the cookie on every page, ended by "Sign out", by their idle or absolute
 * expiry (the `console` section, judged at every page), or when the API no longer takes their
 * token. Opening and signing out are audited in the same transaction as the row's change.
 */
import type { AuditActor, AuditSink } from '../../kernel/audit.ts';
import type { Clock } from '../../kernel/clock.ts';
import { sha256Hex } from '../../kernel/identity/secrets.ts';
import type { TokensService } from '../../kernel/identity/tokens.ts';
import type { Store } from '../../kernel/storage/contract.ts';
import type { ConsoleConfig } from './config.ts';
import { newCookieValue, tenantOfValue } from './cookie.ts';
import { consoleSessionsTable, type ConsoleSessionRow } from './tables.ts';

/** `lastSeenAt` is written at most this often, so reading a page is seldom a write. */
const SEEN_RESOLUTION_MS = 60_000;

export interface ConsoleSession {
  row: ConsoleSessionRow;
  tenantId: string;
  /** The token every form of the session carries (see {@link csrfToken}). */
  csrf: string;
}

/** How a session began, as its audit event says. */
export type SignInMethod = 'token' | 'sso';

/**
 * The session's form token: derived from the cookie's value, which only the browser (it is
 * HttpOnly) and this request know; the database keeps only another hash of it.
 */
export const csrfToken = (cookieValue: string) => sha256Hex(`console-csrf:${cookieValue}`);

export interface SessionDeps {
  storage(tenantId: string): Store;
  clock: Clock;
  config(): ConsoleConfig;
  audit: AuditSink;
  tokens: TokensService;
}

export function createSessions(deps: SessionDeps) {
  const expired = (row: ConsoleSessionRow, now: number) => {
    const { idleMinutes, absoluteHours } = deps.config();
    return (
      now - Date.parse(row.lastSeenAt) > idleMinutes * 60_000 ||
      now - Date.parse(row.createdAt) > absoluteHours * 3_600_000
    );
  };

  return {
    /** Seconds a new session's cookie is kept by the browser: its absolute lifetime. */
    cookieSeconds: () => deps.config().absoluteHours * 3600,

    /**
     * Opens a session for `user` acting with the token of `tokenHash`, and returns the cookie's
     * value (shown to nobody else). `store` is the tenant's (`input.tenantId`), carrying the
     * request's audit scope.
     * The user's sessions that have expired go in the same transaction, so abandoned ones do not
     * pile up.
     */
    async open(
      store: Store,
      input: {
        tenantId: string;
        user: AuditActor;
        token: { id: string; hash: string };
        ownsToken: boolean;
        method: SignInMethod;
      },
    ): Promise<string> {
      const value = newCookieValue(input.tenantId);
      const now = deps.clock.now();
      await store.transaction(async (tx) => {
        const table = tx.table(consoleSessionsTable);
        const stale = (await table.find({ where: { userId: input.user.id } })).filter((row) =>
          expired(row, now.getTime()),
        );
        for (const row of stale) await table.delete(row.id);
        await table.insert({
          id: sha256Hex(value),
          userId: input.user.id,
          tokenHash: input.token.hash,
          tokenId: input.token.id,
          ownsToken: input.ownsToken,
          createdAt: now.toISOString(),
          lastSeenAt: now.toISOString(),
        });
        await deps.audit.record(tx, {
          action: 'console.signed_in',
          target: { kind: 'user', id: input.user.id, name: input.user.name },
          actor: input.user,
          details: { method: input.method },
        });
      });
      return value;
    },

    /** The open session of a cookie's value, or null (unknown, malformed or expired: removed). */
    async find(value: string | undefined): Promise<ConsoleSession | null> {
      const tenantId = value ? tenantOfValue(value) : null;
      if (!value || !tenantId) return null;
      const table = deps.storage(tenantId).table(consoleSessionsTable);
      const row = await table.get(sha256Hex(value));
      if (!row) return null;
      const now = deps.clock.now();
      if (expired(row, now.getTime())) {
        await table.delete(row.id);
        return null;
      }
      if (now.getTime() - Date.parse(row.lastSeenAt) >= SEEN_RESOLUTION_MS)
        await table.update(row.id, { lastSeenAt: now.toISOString() });
      return { row, tenantId, csrf: csrfToken(value) };
    },

    /**
     * "Sign out": the session's row goes with its audit event, and a token issued for the
     * session alone is revoked (nobody else holds its secret).
     */
    async signOut(store: Store, session: ConsoleSession, user: AuditActor): Promise<void> {
      await store.transaction(async (tx) => {
        await tx.table(consoleSessionsTable).delete(session.row.id);
        await deps.audit.record(tx, {
          action: 'console.signed_out',
          target: { kind: 'user', id: user.id, name: user.name },
          actor: user,
        });
      });
      if (session.row.ownsToken) await deps.tokens.revoke(store, session.row.tokenId);
    },

    /** Removes a session whose token the API no longer takes (revoked, expired, user gone). */
    async drop(session: ConsoleSession): Promise<void> {
      await deps.storage(session.tenantId).table(consoleSessionsTable).delete(session.row.id);
    },
  };
}

export type Sessions = ReturnType<typeof createSessions>;
