/**
 * Appending items (saved requests, documents) to a container — a folder, or a collection's root.
 *
 * A new item goes last in its container, so each create locks the collection to read the last
 * position and insert after it; concurrent creates into one container take turns, each holding
 * the lock for several round trips. Here, creates into the same container that arrive while one
 * is being written wait and then go together: one transaction locks the collection once, reads
 * the last position once and inserts every waiting row at consecutive positions in one statement
 * (group commit). Positions stay distinct and in arrival order, and every create still answers
 * only once its row is committed.
 *
 * A batch that the database refuses because of a row (a duplicate key, a value it cannot hold)
 * re-runs each of its creates on its own, so one bad row never fails another request. Any other
 * failure (the collection or folder is gone, the database is unavailable, a conflict that
 * persists) fails every create of the batch at once, as each alone would have failed.
 */
import type { AuditScope } from '../../../kernel/audit.ts';
import { objectNumber } from '../../../kernel/cache.ts';
import { StorageError, type Store } from '../../../kernel/storage/contract.ts';

/** Rows, and request bytes, one batch writes at most; the rest wait for the next batch. */
const MAX_BATCH_ROWS = 100;
const MAX_BATCH_BYTES = 4 * 1024 * 1024;

interface Pending<Container, Row> {
  container: Container;
  /** Roughly what the row weighs (its request body). */
  bytes: number;
  /**
   * The request's store: a batch writes through its first create's (one tenant, one database),
   * and each row's history names its own request (`store.context.audit`), not the batch's first.
   */
  store: Store;
  build: (sortOrder: number, now: string) => Row;
  resolve: (row: Row) => void;
  reject: (error: unknown) => void;
}

export interface Appender<Container, Row> {
  /**
   * Adds a row built by `build` (given its position and the write's time) at the end of
   * `container`, through `store` (the request's, bound to its tenant); resolves with the
   * committed row.
   */
  append(
    container: Container,
    store: Store,
    build: (sortOrder: number, now: string) => Row,
    bytes?: number,
  ): Promise<Row>;
}

export interface AppendSteps<Container, Row> {
  /** Names a container; creates with equal keys (and tenants) share batches. */
  key(container: Container): string;
  /**
   * Inside the batch's transaction: checks and locks the container, and gives the first free
   * position and the write's time.
   */
  start(tx: Store, container: Container): Promise<{ first: number; now: string }>;
  /** Inserts the built rows inside the same transaction; `scopes[i]` asked for `rows[i]`. */
  insert(tx: Store, rows: Row[], scopes: (AuditScope | null)[]): Promise<unknown>;
}

/** The connection a batch writes through: two databases (after a reload) never share a batch. */
function driverNumber(store: Store): number {
  return store.changes ? objectNumber(store.changes) : 0;
}

export function createAppender<Container, Row>(
  steps: AppendSteps<Container, Row>,
): Appender<Container, Row> {
  const queues = new Map<string, Pending<Container, Row>[]>();

  async function runBatch(batch: Pending<Container, Row>[]): Promise<void> {
    const { store, container } = batch[0]!;
    try {
      const rows = await store.transaction(async (tx) => {
        const { first, now } = await steps.start(tx, container);
        const built = batch.map((pending, index) => pending.build(first + index, now));
        await steps.insert(
          tx,
          built,
          batch.map((pending) => pending.store.context.audit),
        );
        return built;
      });
      batch.forEach((pending, index) => pending.resolve(rows[index]!));
    } catch (error) {
      const refusedRow =
        error instanceof StorageError && (error.code === 'unique' || error.code === 'invalid');
      if (batch.length === 1 || !refusedRow) {
        for (const pending of batch) pending.reject(error);
        return;
      }
      for (const pending of batch) await runBatch([pending]);
    }
  }

  async function drain(key: string): Promise<void> {
    for (;;) {
      const queue = queues.get(key)!;
      if (queue.length === 0) {
        queues.delete(key);
        return;
      }
      let rows = 1;
      let bytes = queue[0]!.bytes;
      while (
        rows < queue.length &&
        rows < MAX_BATCH_ROWS &&
        bytes + queue[rows]!.bytes <= MAX_BATCH_BYTES
      )
        bytes += queue[rows++]!.bytes;
      await runBatch(queue.splice(0, rows));
    }
  }

  return {
    append(container, store, build, bytes = 0) {
      // Stores of one driver share its change feed object: after a reload swapped databases, a
      // create on the new one never joins a batch written to the old one.
      const key = `${store.tenantId}:${driverNumber(store)}:${steps.key(container)}`;
      return new Promise<Row>((resolve, reject) => {
        const pending = { container, store, bytes, build, resolve, reject };
        const queue = queues.get(key);
        if (queue) {
          queue.push(pending);
          return;
        }
        queues.set(key, [pending]);
        // The first create of a quiet container starts draining; later ones join its batches.
        void drain(key);
      });
    },
  };
}
