/**
 * Other processes' writes on Firestore, which tells no client of another's writes: a change
 * sequence in counter documents, incremented in the same transaction as the change.
 *
 * Every write of the hub runs in a transaction (store.ts); at its commit, each collection it wrote
 * gets `FieldValue.increment(1)` on one of SHARDS counter documents, picked at random, so
 * concurrent writers of one collection seldom contend on one document. A lookup reads all counter
 * documents in one query, shared by every lookup that arrived while no read had started
 * (../batched.ts); counts only grow, so an unchanged sum proves nothing was committed to that
 * collection in between, and a changed one moves its stamp.
 */
import { FieldValue, type Firestore } from '@google-cloud/firestore';
import { batched } from '../batched.ts';
import { ChangeStamps, type ChangeFeed } from '../changes.ts';
import { collectionName, UNCOUNTED_COLLECTIONS } from './codec.ts';
import type { TxState } from './session.ts';

export const CHANGE_COUNTS = 'hubChangeCounts';
const SHARDS = 16;

/** Stages the counter increments of the collections this transaction attempt writes. */
export function countChanges(db: Firestore, state: TxState): void {
  const written = new Set([...state.staged.values()].map((entry) => entry.collection));
  for (const collection of written) {
    if (UNCOUNTED_COLLECTIONS.has(collection)) continue;
    const shard = Math.floor(Math.random() * SHARDS);
    state.tx.set(
      db.collection(CHANGE_COUNTS).doc(`${collection}~${shard}`),
      { collection, n: FieldValue.increment(1) },
      { merge: true },
    );
  }
}

/**
 * The feed: `ready()` tells whether the migration that starts the counting has been recorded (until
 * then a write could go uncounted); `bounded` applies the driver's deadline to a read.
 */
export function firestoreChangeFeed(
  db: Firestore,
  ready: () => Promise<boolean>,
  bounded: <T>(read: Promise<T>) => Promise<T>,
): ChangeFeed & { close(): void } {
  const stamps = new ChangeStamps();
  let installed = false;
  let closed = false;
  let seen: Map<string, number> | undefined;
  const read = batched(
    async () => {
      if (closed) return false;
      if (!installed && !(installed = await ready())) return false;
      const snap = await bounded(db.collection(CHANGE_COUNTS).get());
      const now = new Map<string, number>();
      for (const doc of snap.docs) {
        const collection = String(doc.get('collection'));
        now.set(collection, (now.get(collection) ?? 0) + Number(doc.get('n') ?? 0));
      }
      if (seen) {
        const moved = [...now].filter(([c, n]) => seen!.get(c) !== n).map(([c]) => c);
        if (moved.length > 0) stamps.bump(moved);
      } else stamps.bumpAll();
      seen = now;
      return !closed;
    },
    1,
    'turn',
  );
  return {
    stamp(tables) {
      // Nothing is kept before the first read of the counters (which starts the counting here).
      if (seen === undefined && !closed) void read();
      return seen === undefined || closed ? null : stamps.stamp(tables.map(collectionName));
    },
    caughtUp: (arrival) => (closed ? false : read(arrival)),
    close: () => void (closed = true),
  };
}
