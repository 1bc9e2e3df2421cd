/**
 * The embedded database's writer connection, with group commit.
 *
 * Every write of this process goes through one connection, one query or transaction at a time
 * (a first-come, first-served queue). A transaction takes the writer lock when it begins
 * (`BEGIN IMMEDIATE`), so it never fails half-way on a lock upgrade.
 *
 * When a transaction ends and nobody waits for the connection, its SQLite transaction stays open
 * until the end of the event loop's turn (a `setImmediate`), and the transactions begun meanwhile
 * run inside it, each as a savepoint of its own: a transaction that fails rolls back to its
 * savepoint and takes nothing of the others with it. The group is committed at the end of the
 * turn, when it holds {@link MAX_GROUP} transactions, before the connection passes to someone who
 * waited for it, or before a statement that is not part of a transaction runs. One COMMIT then
 * writes the pages the group's transactions share (a table's last page, an index's) once instead
 * of once each. Without the wait there would be no groups: the library is synchronous, so a
 * transaction has always ended before another request's code runs.
 *
 * What it asks of callers: a transaction's callback must not wait for another transaction's
 * answer (a promise of `store.transaction` begun outside it). That answer may wait for the
 * group's COMMIT, which waits for the callback. A transaction that waits for other I/O inside its
 * callback delays the answers of the group's transactions that ended before it.
 *
 * When SQLite itself rolls back the whole transaction (a severe error such as a full disk), the
 * group's earlier transactions are lost with it: they fail as a conflict, which runs them again.
 * A COMMIT that fails fails every transaction of its group with its error.
 *
 * A transaction of a group is durable only when its group is: callers wait for
 * {@link GroupCommitDriver.durable} (taken inside the transaction) before they report success, so
 * nothing is acknowledged that a failed COMMIT could still take back. Readers on other connections
 * see a group's transactions all at once, at its COMMIT.
 */
import { setImmediate } from 'node:timers';
import {
  CompiledQuery,
  SelectQueryNode,
  SqliteDialect,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  type SqliteDatabase,
  type SqliteDialectConfig,
} from 'kysely';
import { StorageError } from '../contract.ts';

/** At most this many transactions share a COMMIT (each waits for the last one's end). */
export const MAX_GROUP = 16;

interface Group {
  /** Transactions run in it whose work stands (not rolled back). */
  kept: number;
  /** Transactions begun in it, kept or not. */
  begun: number;
  /** Settles when the group's COMMIT has run (or failed). */
  readonly done: Promise<void>;
  settle(error?: unknown): void;
}

function newGroup(): Group {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const done = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Whoever waits for it sees a failure; nobody waiting must not make it an unhandled rejection.
  done.catch(() => undefined);
  return {
    kept: 0,
    begun: 0,
    done,
    settle: (error) => (error === undefined ? resolve() : reject(error)),
  };
}

export class GroupCommitDriver implements Driver {
  readonly #database: SqliteDatabase;
  readonly #connection: DatabaseConnection;
  /** Whoever waits for the connection, first come first served. */
  readonly #queue: (() => void)[] = [];
  #held = false;
  /** The open SQLite transaction and its transactions so far; null between groups. */
  #group: Group | null = null;
  /** Whether the holder of the connection is inside a transaction (its savepoint is open). */
  #inTransaction = false;
  #commitScheduled = false;

  constructor(database: SqliteDatabase) {
    this.#database = database;
    const run = (query: CompiledQuery): QueryResult<any> => {
      // A statement outside a transaction must see, and must not join, an open group.
      if (!this.#inTransaction) this.#commit();
      const statement = database.prepare(query.sql);
      if (statement.reader) return { rows: statement.all(query.parameters) as any[] };
      const { changes, lastInsertRowid } = statement.run(query.parameters);
      return {
        numAffectedRows: changes == null ? undefined : BigInt(changes),
        insertId: lastInsertRowid == null ? undefined : BigInt(lastInsertRowid),
        rows: [],
      };
    };
    this.#connection = {
      executeQuery: async (query) => run(query),
      async *streamQuery(query) {
        if (!SelectQueryNode.is(query.query)) throw new Error('SQLite streams only SELECT queries');
        for (const row of (run(query).rows ?? []) as any[]) yield { rows: [row] };
      },
    };
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    if (this.#held) await new Promise<void>((resolve) => this.#queue.push(resolve));
    this.#held = true;
    this.#inTransaction = false;
    return this.#connection;
  }

  async releaseConnection(): Promise<void> {
    this.#inTransaction = false;
    const next = this.#queue.shift();
    if (next) {
      // The next in line may take long (it waited, so something of it is slow) or may be waiting
      // for the answer of a transaction in the group: the group is committed before it begins.
      this.#commit();
      next();
      return;
    }
    this.#held = false;
    if (this.#group && !this.#commitScheduled) {
      // Whatever else this turn of the event loop writes joins the group first.
      this.#commitScheduled = true;
      setImmediate(() => {
        this.#commitScheduled = false;
        // Held: its holder's release schedules the commit again.
        if (!this.#held) this.#commit();
      });
    }
  }

  async beginTransaction(): Promise<void> {
    if (!this.#group) {
      this.#exec('BEGIN IMMEDIATE');
      this.#group = newGroup();
    }
    this.#exec('SAVEPOINT hub_tx');
    this.#group.begun++;
    this.#inTransaction = true;
  }

  async commitTransaction(): Promise<void> {
    const group = this.#group;
    if (!group) return;
    this.#inTransaction = false;
    this.#exec('RELEASE hub_tx');
    group.kept++;
    if (group.begun >= MAX_GROUP) {
      this.#commit();
      // This transaction's own COMMIT failing is its error too.
      await group.done;
    }
  }

  async rollbackTransaction(): Promise<void> {
    const group = this.#group;
    this.#inTransaction = false;
    if (!group) return;
    try {
      this.#exec('ROLLBACK TO hub_tx');
      this.#exec('RELEASE hub_tx');
    } catch (error) {
      // The savepoint is gone (SQLite rolled the whole transaction back on a severe error):
      // the group's other transactions are lost too, and learn it from its failure.
      this.#abandon(error);
      return;
    }
    if (group.begun >= MAX_GROUP) this.#commit();
  }

  /**
   * Inside a transaction: the promise that settles once its work is committed (or failed to be).
   * Wait for it, outside the transaction, before telling anyone the transaction succeeded.
   */
  durable(): Promise<void> | undefined {
    return this.#group?.done;
  }

  async destroy(): Promise<void> {
    // Waits for the query or transaction in flight, then commits what its group holds.
    await this.acquireConnection();
    this.#commit();
  }

  #exec(sql: string): void {
    this.#database.prepare(sql).run([]);
  }

  /** Ends the open group: COMMIT when some of its work stands, else ROLLBACK. */
  #commit(): void {
    const group = this.#group;
    if (!group) return;
    this.#group = null;
    try {
      this.#exec(group.kept > 0 ? 'COMMIT' : 'ROLLBACK');
      group.settle();
    } catch (error) {
      this.#rollbackQuietly();
      group.settle(error);
    }
  }

  /**
   * SQLite rolled the whole transaction back (a severe error: disk full, I/O): the group's earlier
   * transactions are lost with it through no fault of their own, and are run again (a conflict).
   */
  #abandon(error: unknown): void {
    const group = this.#group;
    this.#group = null;
    this.#rollbackQuietly();
    group?.settle(
      new StorageError('conflict', 'Rolled back with another transaction of its commit group', {
        cause: error,
      }),
    );
  }

  #rollbackQuietly(): void {
    try {
      this.#exec('ROLLBACK');
    } catch {
      // No transaction was open any more.
    }
  }
}

/** Kysely's SQLite dialect on the writer connection, with {@link GroupCommitDriver}. */
export class GroupCommitDialect extends SqliteDialect {
  readonly driver: GroupCommitDriver;
  constructor(config: SqliteDialectConfig & { database: SqliteDatabase }) {
    super(config);
    this.driver = new GroupCommitDriver(config.database);
  }
  override createDriver(): Driver {
    return this.driver;
  }
}
