/**
 * One check shared by every caller that arrived while no check had started yet.
 *
 * A caller must be answered by a check that began after it arrived (a check begun earlier proves
 * nothing about writes acknowledged just before the caller came). So callers gather into a batch,
 * whose check starts once the code that brought the first of them has run (a microtask), or with
 * `gather: 'turn'` once the event loop's turn is over (every request that arrived in it). At
 * most `inFlight` checks run at once (1 unless told: a check that can be pipelined, like
 * PostgreSQL's fence, may take more); while that many run, new callers gather for the next, which
 * starts as soon as one ends: however many callers come, at most `inFlight` checks run and one
 * batch waits to start.
 *
 * A caller may say when its work arrived (an {@link arrivalMark} taken as its request came in): a
 * check that started after that and succeeded already proves what the caller needs, so it is
 * answered at once, without a check of its own.
 *
 * The mark is passed by hand, not through AsyncLocalStorage: on Node 20 one active
 * AsyncLocalStorage makes every promise of the process pay a hook (the shared bench's reads ran a
 * quarter to a third slower on PostgreSQL with two of them).
 */

import { setImmediate } from 'node:timers';

/** Counts check starts across every feed of the process: a request's arrival is a count. */
let started = 0;

/** The moment of arrival as checks count it: pass it to a batched check made later. */
export const arrivalMark = (): number => started;

/**
 * When a batch's check starts: after the code that brought its first caller has run (a microtask),
 * or at the end of the event loop's turn (`setImmediate`), so every request that arrived in the
 * same turn (each from its own socket) joins one check.
 */
export type Gather = 'microtask' | 'turn';

export function batched(
  check: () => Promise<boolean>,
  inFlight = 1,
  gather: Gather = 'microtask',
): (arrival?: number) => Promise<boolean> {
  const schedule = gather === 'turn' ? (start: () => void) => setImmediate(start) : queueMicrotask;
  let running = 0;
  let next: { promise: Promise<boolean>; resolve: (ok: boolean) => void } | undefined;
  // The start count of the latest check that succeeded.
  let provenFrom = -1;

  const start = () => {
    const batch = next;
    if (!batch || running >= inFlight) return;
    next = undefined;
    running++;
    const startedAs = ++started;
    check()
      .catch(() => false)
      .then((ok) => {
        running--;
        if (ok && startedAs > provenFrom) provenFrom = startedAs;
        batch.resolve(ok);
        start();
      });
  };

  return (arrival) => {
    // A check started after this request arrived has succeeded: it proves this lookup too.
    if (arrival !== undefined && provenFrom > arrival) return Promise.resolve(true);
    if (!next) {
      let resolve!: (ok: boolean) => void;
      const promise = new Promise<boolean>((r) => (resolve = r));
      next = { promise, resolve };
      // Callers of the same turn join this batch before it is sent.
      schedule(start);
    }
    return next.promise;
  };
}
