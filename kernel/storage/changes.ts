/**
 * Change stamps: what lets an in-process cache answer without asking the database and still never
 * serve a row that changed, whichever process changed it.
 *
 * Each table has a stamp that grows whenever a row of it may have changed. A cache entry remembers
 * the stamp of its tables from before it read them and is valid while that stamp is unchanged.
 * Writes through this process bump their tables when their statement or transaction ends (before
 * the request that wrote can answer); writes by other processes reach the stamps through the
 * driver's own signal (SQLite's `data_version`, PostgreSQL's LISTEN/NOTIFY). A driver that cannot
 * see other processes' writes has no feed, and nothing is cached on it.
 */

/**
 * The migration that installs the change sequence of MySQL and Firestore (and renews PostgreSQL's
 * triggers); until it is recorded those drivers cache nothing.
 */
export const CHANGE_SEQUENCE_MIGRATION = 'kernel/0003-change-sequence';

/** The stamps a driver offers to caches (`StorageDriver.changes`). */
export interface ChangeFeed {
  /**
   * The current stamp of these tables, once it reflects every change committed (by any process)
   * before the call: it differs from an earlier one whenever a row of any of them may have
   * changed since, and grows. Null when the driver cannot prove that right now (its listener is
   * reconnecting or behind), or never can: cache nothing then. A promise where proving takes a
   * round trip (PostgreSQL's fence, MySQL's and Firestore's change sequence).
   */
  stamp(tables: readonly string[]): number | null | Promise<number | null>;
}

/** The feed of a driver that cannot see other processes' writes: one object per driver. */
export function noChangeFeed(): ChangeFeed {
  return { stamp: () => null };
}

/**
 * One clock for every driver of the process: a stamp value is handed out once, so a stamp of one
 * driver never equals a stamp of another (a reload that swapped databases cannot make a value
 * read from the old database look current on the new one).
 */
let clock = 0;

/** Per-table stamps of one driver. */
export class ChangeStamps {
  // A new driver starts after every stamp any earlier driver handed out.
  #everything = ++clock;
  readonly #tables = new Map<string, number>();

  /** Rows of these tables may have changed. */
  bump(tables: Iterable<string>): void {
    const now = ++clock;
    for (const table of tables) this.#tables.set(table, now);
  }

  /** Anything may have changed (another process wrote, or a listener reconnected). */
  bumpAll(): void {
    this.#everything = ++clock;
  }

  stamp(tables: readonly string[]): number {
    let stamp = this.#everything;
    for (const table of tables) {
      const at = this.#tables.get(table);
      if (at !== undefined && at > stamp) stamp = at;
    }
    return stamp;
  }
}
