/**
 * The `firestore` storage driver: the contract on one Firestore database, versioned migrations
 * recorded in `hubMigrations`, and a lease in `hubLocks` so two processes never migrate at once.
 *
 * Firestore has no DDL: a collection exists once it holds a document. Creating a table records its
 * declaration in `hubCollections` (what the operator and the index tooling read); adding a column
 * writes its default into every existing document, so equality filters on it match old rows too.
 */
import { Timestamp, type DocumentData, type Firestore } from '@google-cloud/firestore';
import { createCircuitBreaker, type CircuitBreaker } from '../../breaker.ts';
import { StorageError, type Migration, type Store, type StorageDriver } from '../contract.ts';
import { CHANGE_SEQUENCE_MIGRATION } from '../changes.ts';
import { CHANGE_COUNTS, firestoreChangeFeed } from './change-counts.ts';
import type { ColumnSpec, Table } from '../table.ts';
import { codecFor, collectionName, docId } from './codec.ts';
import { createLockManager } from './locks.ts';
import { UNIQUE_KEYS } from './session.ts';
import { createFirestoreStore, isFirestoreStall, mapFirestoreError } from './store.ts';
import { createGate, withDeadline, type FirestoreContext, type Gate } from './gate.ts';

export const MIGRATIONS = 'hubMigrations';
const COLLECTIONS = 'hubCollections';
const LOCKS = 'hubLocks';
/** A migration lease older than this is taken to belong to a process that died. */
const LEASE_MS = 120_000;
const RESERVED = new Set([MIGRATIONS, COLLECTIONS, LOCKS, UNIQUE_KEYS, CHANGE_COUNTS]);

/** What a NOT NULL column added to existing rows holds, as the SQL drivers' column defaults. */
function addedDefault(spec: ColumnSpec): unknown {
  if (spec.nullable) return spec.kind === 'json' ? 'null' : null;
  switch (spec.kind) {
    case 'int':
      return 0;
    case 'bool':
      return false;
    case 'timestamp':
      return Timestamp.now();
    case 'json':
      return 'null';
    default:
      return '';
  }
}

async function recordTable(db: Firestore, table: Table): Promise<void> {
  const name = collectionName(table.name);
  if (RESERVED.has(name))
    throw new Error(`Table "${table.name}" would use the reserved Firestore collection "${name}"`);
  const columns = Object.fromEntries(
    Object.entries(table.columns).map(([column, spec]) => [
      column,
      `${spec.kind}${spec.nullable ? '?' : ''}`,
    ]),
  );
  await db
    .collection(COLLECTIONS)
    .doc(name)
    .set({
      table: table.name,
      collection: name,
      tenantScoped: table.tenantScoped,
      columns,
      indexes: table.indexes.map((list) => list.join(',')),
      unique: table.unique.map((list) => list.join(',')),
      updatedAt: Timestamp.now(),
    });
}

/** Deletes every document of a table no longer declared, and its declaration. */
async function dropTable(store: Store, db: Firestore, table: Table): Promise<void> {
  for (;;) {
    // 100 at a time: with their unique keys that stays under Firestore's 500 writes per commit.
    const rows = await store.table(table).find({ limit: 100 });
    if (rows.length === 0) break;
    await store.table(table).deleteWhere({ id: { in: rows.map((row) => row.id) } });
  }
  await db.collection(COLLECTIONS).doc(collectionName(table.name)).delete();
}

async function backfillColumns(
  db: Firestore,
  table: Table,
  columns: readonly string[],
): Promise<void> {
  const collection = db.collection(codecFor(table).collection);
  let last: DocumentData | undefined;
  for (;;) {
    let page = collection.orderBy('__name__').limit(300);
    if (last) page = page.startAfter(last);
    const snap = await page.get();
    if (snap.empty) return;
    const batch = db.batch();
    for (const doc of snap.docs) {
      const missing = Object.fromEntries(
        columns
          .filter((c) => doc.get(c) === undefined)
          .map((c) => [c, addedDefault(table.columns[c]!)]),
      );
      if (Object.keys(missing).length > 0) batch.update(doc.ref, missing);
    }
    await batch.commit();
    last = snap.docs[snap.docs.length - 1];
  }
}

/** Runs `fn` holding the migration lease; waits while another live process holds it. */
async function withMigrationLease<R>(db: Firestore, fn: () => Promise<R>): Promise<R> {
  const ref = db.collection(LOCKS).doc('migrate');
  const holder = crypto.randomUUID();
  for (const started = Date.now(); ;) {
    const taken = await db.runTransaction(async (tx) => {
      const snap = await tx.get(ref);
      const expires = snap.exists ? (snap.get('expiresAt') as Timestamp).toMillis() : 0;
      if (expires > Date.now()) return false;
      tx.set(ref, { holder, expiresAt: Timestamp.fromMillis(Date.now() + LEASE_MS) });
      return true;
    });
    if (taken) break;
    if (Date.now() - started > LEASE_MS)
      throw new Error('Timed out waiting for another process to finish migrating');
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  try {
    return await fn();
  } finally {
    await ref.delete().catch(() => undefined);
  }
}

/** A driver on an open Firestore client; `close` terminates the client. */
export interface FirestoreDriverOptions {
  /**
   * Milliseconds a top-level call or a whole transaction may take before it fails as
   * `unavailable` (503). Migrations as a whole are not bounded (each of their calls is). None when absent.
   */
  timeoutMillis?: number;
}

/**
 * Runs `call` behind the circuit breaker: while it is open, it fails at once; a call that stalls
 * (our deadline, or the client's own UNAVAILABLE / DEADLINE_EXCEEDED) opens it.
 */
function throughBreaker<T>(breaker: CircuitBreaker, call: () => Promise<T>): Promise<T> {
  if (breaker.isOpen()) {
    const message = 'The database stalled; failing at once until it answers';
    return Promise.reject(new StorageError('unavailable', message, { cause: breaker.cause }));
  }
  const started = Date.now();
  return call().catch((error: unknown) => {
    if (isFirestoreStall(error)) breaker.trip(error, started);
    throw error;
  });
}

/** The gate's top-level calls behind the circuit breaker; closing it stops the probes. */
function breakerGate(gate: Gate, breaker: CircuitBreaker): Gate {
  return {
    run: (call) => throughBreaker(breaker, () => gate.run(call)),
    close() {
      breaker.dispose();
      return gate.close();
    },
  };
}

export function createFirestoreDriver(
  db: Firestore,
  options: FirestoreDriverOptions = {},
): StorageDriver {
  // One document read, bounded like any call: the ping, and the breaker's probe while it is open.
  const readOne = async () => {
    const read = db.collection(MIGRATIONS).limit(1).get();
    await (options.timeoutMillis ? withDeadline(read, options.timeoutMillis) : read);
  };
  const breaker = createCircuitBreaker({ name: 'database', probe: readOne });
  const ctx: FirestoreContext = {
    db,
    locks: createLockManager(),
    gate: breakerGate(createGate(options.timeoutMillis), breaker),
  };
  const guard = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      return mapFirestoreError(error);
    }
  };

  // Firestore tells no one of other clients' writes: the change sequence does (change-counts.ts).
  const changes = firestoreChangeFeed(
    db,
    async () =>
      (await db.collection(MIGRATIONS).doc(docId(CHANGE_SEQUENCE_MIGRATION)).get()).exists,
    (read) => (options.timeoutMillis ? withDeadline(read, options.timeoutMillis) : read),
  );
  const withFeed = (store: Store): Store => ({ ...store, changes });
  return {
    kind: 'firestore',
    migratesOnStart: false,
    forTenant: (tenantId, context) => withFeed(createFirestoreStore(ctx, tenantId, null, context)),
    unscoped: () => withFeed(createFirestoreStore(ctx, null)),
    changes,
    appliedMigrations: () =>
      guard(async () => {
        const snap = await db.collection(MIGRATIONS).get();
        const rows = snap.docs.map((doc) => ({
          id: String(doc.get('id')),
          at: (doc.get('appliedAt') as Timestamp).toMillis(),
        }));
        return rows.sort((x, y) => x.at - y.at || (x.id < y.id ? -1 : 1)).map((row) => row.id);
      }),
    applyMigration: (migration: Migration) =>
      guard(() =>
        withMigrationLease(db, async () => {
          const record = db.collection(MIGRATIONS).doc(docId(migration.id));
          if ((await record.get()).exists) return;
          for (const table of migration.dropTables ?? [])
            await dropTable(createFirestoreStore(ctx, null), db, table);
          for (const table of migration.createTables ?? []) await recordTable(db, table);
          for (const { table, columns } of migration.addColumns ?? []) {
            await recordTable(db, table);
            await backfillColumns(db, table, columns);
          }
          for (const table of migration.addIndexes ?? []) await recordTable(db, table);
          if (migration.run) await migration.run(createFirestoreStore(ctx, null));
          await record.set({ id: migration.id, appliedAt: Timestamp.now() });
        }),
      ),
    ping: () => throughBreaker(breaker, () => guard(readOne)),
    circuit: breaker,
    async close() {
      changes.close();
      await ctx.gate.close();
      await db.terminate();
    },
  };
}
