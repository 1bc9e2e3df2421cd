/**
 * What every Firestore store of one driver shares, and the gate that counts top-level calls in
 * flight and bounds how long one may take.
 */
import type { Firestore } from '@google-cloud/firestore';
import { StorageError } from '../contract.ts';
import type { LockManager } from './locks.ts';

/** What every store of one driver shares. */
export interface FirestoreContext {
  readonly db: Firestore;
  readonly locks: LockManager;
  /** Counts top-level calls in flight, so close() can wait for them and refuse new ones. */
  readonly gate: Gate;
}

export interface Gate {
  run<T>(call: () => Promise<T>): Promise<T>;
  /** Refuses new calls, then resolves once those in flight have finished. */
  close(): Promise<void>;
}

/**
 * Answers `unavailable` once `ms` pass: the client's own deadlines and retries can hold a call for
 * minutes when the backend stalls. The call itself goes on (the gate still counts it, and its late
 * failure is dropped here, not left unhandled).
 */
export function withDeadline<T>(running: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new StorageError('unavailable', `The database did not answer within ${ms} ms`));
    }, ms);
    running.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/**
 * The Firestore client neither waits for calls in flight when terminated nor fails them cleanly (a
 * transaction started on a terminated client hangs and leaks a rejection), so the driver keeps
 * its own count: the contract's close() waits for in-flight work, and later calls fail at once.
 */
export function createGate(timeoutMillis?: number): Gate {
  let active = 0;
  let closing = false;
  let drained: (() => void) | null = null;
  return {
    async run(call) {
      if (closing) throw new StorageError('unavailable', 'The database connection is closed');
      active += 1;
      const running = (async () => {
        try {
          return await call();
        } finally {
          active -= 1;
          if (active === 0) drained?.();
        }
      })();
      return timeoutMillis ? withDeadline(running, timeoutMillis) : running;
    },
    async close() {
      closing = true;
      if (active > 0) await new Promise<void>((resolve) => (drained = resolve));
    },
  };
}
