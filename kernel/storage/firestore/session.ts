/**
 * What one Firestore transaction attempt holds: the Firestore transaction, its row locks, and the
 * writes it has asked for so far.
 *
 * Firestore refuses a read after a write inside a transaction, while the contract lets a plugin
 * read its own writes. So writes are staged here and handed to Firestore only when the callback
 * has returned, after every read: Firestore always sees reads first. Reads made after a staged
 * write see it, because readers lay the staged documents over what Firestore returns.
 */
import { createHash } from 'node:crypto';
import type {
  DocumentData,
  DocumentReference,
  Firestore,
  Query,
  Transaction,
} from '@google-cloud/firestore';
import { StorageError } from '../contract.ts';
import type { LockOwner } from './locks.ts';

type Row = Record<string, unknown>;

/** The collection of unique-key documents: one per (table, tenant, constraint, values). */
export const UNIQUE_KEYS = 'hubUniqueKeys';

export interface Staged {
  readonly ref: DocumentReference;
  readonly collection: string;
  /** The document after the transaction; null when it is deleted. */
  data: DocumentData | null;
  /** Written with Firestore's "must not exist" precondition (a new row or unique key). */
  create: boolean;
  /** For row documents: the decoded row with its tenant, to match against queries. */
  row?: Row;
  /** For unique keys and rows: what a failed create means. */
  constraint?: { table: string; columns: readonly string[] };
}

export interface TxState {
  readonly tx: Transaction;
  readonly owner: LockOwner;
  readonly staged: Map<string, Staged>;
  /** Documents read for update, as read: written back unchanged at commit (see {@link flush}). */
  readonly locked: Map<string, { ref: DocumentReference; data: DocumentData }>;
}

/** Stages a write; a later write to the same document replaces an earlier one. */
export function stage(state: TxState, entry: Staged): void {
  const previous = state.staged.get(entry.ref.path);
  if (entry.data === null) {
    // Created and deleted in the same transaction: the document never existed, nothing to write.
    if (previous?.create) state.staged.delete(entry.ref.path);
    else state.staged.set(entry.ref.path, { ...entry, create: false });
    return;
  }
  // A document this transaction deleted did exist before, so writing it again is a plain set.
  const create = previous ? previous.create && previous.data !== null : entry.create;
  state.staged.set(entry.ref.path, { ...entry, create });
}

/**
 * Hands every staged write to Firestore; called once, after the callback's last read.
 *
 * A transaction that writes also writes back, unchanged, every document it read for update.
 * Firestore's read locks are shared, so two instances could both read a parent and then write
 * different children from the same stale plan; a write to the parent makes the second commit
 * conflict and run again, which is what SQL's `FOR UPDATE` gives across connections.
 */
export function flush(state: TxState): void {
  if (state.staged.size > 0) {
    for (const [path, { ref, data }] of state.locked)
      if (!state.staged.has(path)) state.tx.set(ref, data);
  }
  for (const entry of state.staged.values()) {
    if (entry.data === null) state.tx.delete(entry.ref);
    else if (entry.create) state.tx.create(entry.ref, entry.data);
    else state.tx.set(entry.ref, entry.data);
  }
}

/**
 * Reads, with a transaction's staged writes laid over. Only reads for update are transactional:
 * other reads see the latest committed data and take no Firestore lock, as plain reads do at SQL's
 * READ COMMITTED, so transactions in one process only ever wait on each other through the row
 * locks of locks.ts, where deadlocks are seen at once.
 */
export interface Reader {
  /** Documents for these references, in order; null for a missing or deleted one. */
  docs(refs: readonly DocumentReference[], forUpdate?: boolean): Promise<(DocumentData | null)[]>;
  query(query: Query): Promise<{ path: string; data: DocumentData }[]>;
  count(query: Query): Promise<number>;
}

export function createReader(db: Firestore, state: TxState | null): Reader {
  return {
    async docs(refs, forUpdate = false) {
      const unstaged = refs.filter((ref) => !state?.staged.has(ref.path));
      const snaps =
        unstaged.length === 0
          ? []
          : state && forUpdate
            ? await state.tx.getAll(...unstaged)
            : await db.getAll(...unstaged);
      const found = new Map(
        snaps.map((snap) => [snap.ref.path, snap.exists ? snap.data()! : null]),
      );
      if (state && forUpdate)
        for (const snap of snaps)
          if (snap.exists) state.locked.set(snap.ref.path, { ref: snap.ref, data: snap.data()! });
      return refs.map((ref) => {
        const entry = state?.staged.get(ref.path);
        return entry ? entry.data : (found.get(ref.path) ?? null);
      });
    },
    async query(query) {
      const snap = await query.get();
      return snap.docs.map((doc) => ({ path: doc.ref.path, data: doc.data() }));
    },
    async count(query) {
      const snap = await query.count().get();
      return snap.data().count;
    },
  };
}

/** The unique-key document for one constraint of a row; null when a value is null (SQL allows repeats). */
export function uniqueKeyRef(
  db: Firestore,
  collection: string,
  tenantId: string | null,
  columns: readonly string[],
  row: Row,
): DocumentReference | null {
  const values = columns.map((column) => row[column] ?? null);
  if (values.includes(null)) return null;
  const key = JSON.stringify([collection, tenantId, columns, values]);
  return db.collection(UNIQUE_KEYS).doc(createHash('sha256').update(key).digest('hex'));
}

/** The unique error for a constraint, with its columns as the SQL driver reports them. */
export function uniqueError(
  table: string,
  columns: readonly string[],
  cause?: unknown,
): StorageError {
  return new StorageError('unique', `Duplicate value in ${table}`, {
    table,
    columns,
    ...(cause === undefined ? {} : { cause }),
  });
}
