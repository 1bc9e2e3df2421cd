/**
 * The console's one table: open sessions, in the tenant they were opened in (a tenant's sessions
 * go with it). A row's id is the sha256 of the cookie's value: the value itself is never stored,
 * so a copy of the database opens no session.
 */
import { col, defineTable, type RowOfTable } from '../../kernel/storage/table.ts';

export const consoleSessionsTable = defineTable({
  name: 'console_sessions',
  columns: {
    /** Lower-case hex sha256 of the cookie's value. */
    id: col.id(),
    userId: col.id(),
    /**
     * The sha256 of the token the session acts with, as `api_tokens` stores it: every page asks
     * the API with it, so a revoked or expired token ends the session on its next page.
     */
    tokenHash: col.string(64),
    /** That token's id, to revoke it when {@link ownsToken}. */
    tokenId: col.id(),
    /** The token was issued for this session (by a single sign-on): signing out revokes it. */
    ownsToken: col.bool(),
    createdAt: col.timestamp(),
    /** The last page, to a minute (idle expiry). */
    lastSeenAt: col.timestamp(),
  },
  indexes: [['userId']],
  // Read by id on every page, never through the read cache: no change feed to keep.
  changeFeed: false,
});

export type ConsoleSessionRow = RowOfTable<typeof consoleSessionsTable>;
