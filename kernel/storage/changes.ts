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
export const CHANGE_SEQUENCE_MIGRATION = 'kernel/0004-change-sequence';

/** The stamps a driver offers to caches (`StorageDriver.changes`). */
export interface ChangeFeed {
  /**
   * The stamp of these tables as known now: it grows, and differs from an earlier one whenever a
   * row of any of them may have changed since and this process has heard of it. A value loaded
   * after taking it may be kept under it (a commit after this moment moves it once heard); null
   * when the driver hears nothing of other processes right now: cache nothing then.
   */
  stamp(tables: readonly string[]): number | null;
  /**
   * Resolves true once the stamps include every change committed, by any process, before the
   * call; false when that cannot be proven now (read afresh then). A kept value may be served
   * only if its stamp still holds after this. Costs a round trip where proving needs one
   * (PostgreSQL's fence, MySQL's and Firestore's change sequence), shared by concurrent callers.
   * `arrival` (an `arrivalMark()` of storage/batched.ts taken when the caller's request came in)
   * lets a proof that began after it answer at once; without it the call counts as the arrival.
   */
  caughtUp(arrival?: number): boolean | Promise<boolean>;
}

/** The feed of a driver that cannot see other processes' writes: one object per driver. */
export function noChangeFeed(): ChangeFeed {
  return { stamp: () => null, caughtUp: () => false };
}

/** The stamp of `tables`, proven to include every commit before the call; null without proof. */
export async function provenStamp(
  feed: ChangeFeed | undefined,
  tables: readonly string[],
): Promise<number | null> {
  if (!feed || feed.stamp(tables) === null) return null;
  return (await feed.caughtUp()) ? feed.stamp(tables) : null;
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
