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

/** The stamps a driver offers to caches (`StorageDriver.changes`). */
export interface ChangeFeed {
  /**
   * The current stamp of these tables: it differs from an earlier one whenever a row of any of
   * them may have changed since. Null while the driver cannot vouch for other processes' writes
   * (its listener is reconnecting): cache nothing then.
   */
  stamp(tables: readonly string[]): number | null;
}

/** Per-table stamps of one process. */
export class ChangeStamps {
  #clock = 0;
  #everything = 0;
  readonly #tables = new Map<string, number>();

  /** Rows of these tables may have changed. */
  bump(tables: Iterable<string>): void {
    const now = ++this.#clock;
    for (const table of tables) this.#tables.set(table, now);
  }

  /** Anything may have changed (another process wrote, or a listener reconnected). */
  bumpAll(): void {
    this.#everything = ++this.#clock;
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

/**
 * Collects the tables a transaction writes; they are bumped when it ends (committed or not),
 * since a cache filled before the commit must not outlive it.
 */
export class WrittenTables {
  readonly tables = new Set<string>();
  add(table: string): void {
    this.tables.add(table);
  }
}
