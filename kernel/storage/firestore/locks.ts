/**
 * Row locks inside one process, for `getForUpdate` and the reads behind writes.
 *
 * Firestore's transactional reads take shared locks: two transactions may read the same document,
 * and the loser of the write race is aborted at commit (after the emulator's or server's deadlock
 * detection, seconds later) and run again. That keeps data correct across instances, but it lets a
 * second writer read a row before the first has written it. Within a process we queue writers on
 * the row instead, as SQL's `SELECT … FOR UPDATE` does, so they take turns and plan from fresh
 * rows. A wait that would close a cycle fails at once with a `conflict`, and the transaction that
 * asked runs again; a wait longer than {@link LOCK_WAIT_MS} does too, in case the holder is itself
 * waiting on a Firestore lock held by the waiter, which no one else can see.
 */
import { StorageError } from '../contract.ts';

/** How long a transaction waits for a row lock before giving up and running again. */
export const LOCK_WAIT_MS = 15_000;

/** One transaction attempt, as a lock holder. */
export interface LockOwner {
  readonly held: Set<string>;
  waitingFor: string | null;
}

interface Entry {
  owner: LockOwner;
  queue: { owner: LockOwner; grant: () => void }[];
}

export interface LockManager {
  owner(): LockOwner;
  /** Waits until `owner` holds the lock on `key` (a document path). */
  acquire(owner: LockOwner, key: string): Promise<void>;
  /** Releases every lock of `owner`, handing each to the next waiter. */
  releaseAll(owner: LockOwner): void;
}

export function createLockManager(): LockManager {
  const entries = new Map<string, Entry>();

  const closesCycle = (owner: LockOwner, key: string): boolean => {
    let holder = entries.get(key)?.owner;
    for (let steps = 0; holder && steps < 10_000; steps++) {
      if (holder === owner) return true;
      holder = holder.waitingFor ? entries.get(holder.waitingFor)?.owner : undefined;
    }
    return false;
  };

  const conflict = (why: string) =>
    new StorageError('conflict', `The write conflicted with a concurrent transaction (${why})`);

  return {
    owner: () => ({ held: new Set(), waitingFor: null }),
    acquire(owner, key) {
      const entry = entries.get(key);
      if (!entry) {
        entries.set(key, { owner, queue: [] });
        owner.held.add(key);
        return Promise.resolve();
      }
      if (entry.owner === owner) return Promise.resolve();
      if (closesCycle(owner, key)) return Promise.reject(conflict('deadlock'));
      return new Promise<void>((resolve, reject) => {
        const waiter = {
          owner,
          grant: () => {
            clearTimeout(timer);
            owner.waitingFor = null;
            owner.held.add(key);
            resolve();
          },
        };
        const timer = setTimeout(() => {
          entry.queue.splice(entry.queue.indexOf(waiter), 1);
          owner.waitingFor = null;
          reject(conflict('lock wait timeout'));
        }, LOCK_WAIT_MS);
        owner.waitingFor = key;
        entry.queue.push(waiter);
      });
    },
    releaseAll(owner) {
      for (const key of owner.held) {
        const entry = entries.get(key);
        if (!entry || entry.owner !== owner) continue;
        const next = entry.queue.shift();
        if (!next) {
          entries.delete(key);
          continue;
        }
        entry.owner = next.owner;
        next.grant();
      }
      owner.held.clear();
    },
  };
}
