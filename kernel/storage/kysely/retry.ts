/**
 * The SQL stores' one retry policy: which failures are tried again, how often, and how long to
 * pause in between. Every number lives here.
 *
 * - A transaction that lost a race (PostgreSQL deadlock 40P01 or serialization failure 40001,
 *   MySQL deadlock 1213 or lock wait timeout 1205) runs up to 5 times in all, from fresh reads;
 *   then the conflict reaches the caller (409).
 * - SQLite: a statement or transaction that met another process's writer lock (SQLITE_BUSY, after
 *   the tiny busy timeout) is tried up to 40 times, about 2 s in all; then the database counts as
 *   unavailable (503).
 * - SQLite: a migration waits longer for the writer lock (a server starting, a CLI command), up to
 *   180 attempts, about 10 s; then its error stands.
 *
 * Between attempts: 5 ms × attempt, at most 50 ms, plus 0–10 ms of jitter so that contenders do
 * not collide again in lockstep. The wait is a timer here, so the event loop keeps turning; never
 * SQLite's busy handler, which would block it.
 */
import { busyUnavailable, catchStorageError, isBusyError, mapError } from './errors.ts';

export const RETRY_POLICY = {
  conflictAttempts: 5,
  busyAttempts: 40,
  migrationBusyAttempts: 180,
  pauseStepMs: 5,
  pauseMaxMs: 50,
  jitterMs: 10,
} as const;

/** The pause after failed attempt number `attempt` (1-based). */
export function pauseMillis(attempt: number): number {
  const { pauseStepMs, pauseMaxMs, jitterMs } = RETRY_POLICY;
  return Math.min(pauseMaxMs, pauseStepMs * attempt) + Math.random() * jitterMs;
}

/**
 * Runs `run` until it succeeds. After a failure `judge(error, attempt)` decides: it throws to give
 * up (the error, or one it maps it to), or returns to have the loop pause and try again.
 */
export async function withRetry<T>(
  run: () => Promise<T>,
  judge: (error: unknown, attempt: number) => void,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      judge(error, attempt);
      await new Promise((resolve) => setTimeout(resolve, pauseMillis(attempt)));
    }
  }
}

/**
 * One statement, its errors mapped. With `retryBusy` (outside a transaction) a statement that met
 * another process's writer lock is tried again; inside a transaction the whole transaction is.
 */
export function retryStatement<T>(table: string, run: () => Promise<T>, retryBusy = false) {
  return withRetry(run, (error, attempt) => {
    if (!retryBusy || !isBusyError(error)) mapError(error, table);
    if (attempt >= RETRY_POLICY.busyAttempts) throw busyUnavailable(error, table);
  });
}

/** A whole transaction: run again after a lost race or a busy writer lock; else mapped, thrown. */
export function retryTransaction<T>(run: () => Promise<T>): Promise<T> {
  return withRetry(run, (error, attempt) => {
    const busy = isBusyError(error);
    const mapped = catchStorageError(error);
    if (mapped.code !== 'conflict') throw mapped;
    if (attempt >= (busy ? RETRY_POLICY.busyAttempts : RETRY_POLICY.conflictAttempts))
      throw busy ? busyUnavailable(error) : mapped;
  });
}

/**
 * A migration step on SQLite (dialects/sqlite.ts): it waits out another process's writer lock;
 * other errors stand.
 */
export function retryMigration<T>(run: () => Promise<T>): Promise<T> {
  return withRetry(run, (error, attempt) => {
    if (!isBusyError(error) || attempt >= RETRY_POLICY.migrationBusyAttempts) throw error;
  });
}
