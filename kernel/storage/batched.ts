/**
 * One check shared by every caller that arrived while no check had started yet.
 *
 * A caller must be answered by a check that began after it arrived (a check begun earlier proves
 * nothing about writes acknowledged just before the caller came). So while one check runs, new
 * callers gather for the next, which starts as soon as the running one ends: however many callers
 * come, at most one check runs and one waits to start.
 *
 * Inside a request (`withArrival`, opened by the HTTP pipeline when the request comes in), "arrived"
 * means when the request arrived: a check that started after that and succeeded already proves
 * what any later lookup of the same request needs, so the request's second and third lookups (the
 * token, then the list) need no check of their own.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** Counts check starts across every feed of the process: a request's arrival is a count. */
let started = 0;
const arrivals = new AsyncLocalStorage<number>();

/** Runs `fn` as the work of a request that arrives now. */
export function withArrival<T>(fn: () => T): T {
  return arrivals.run(started, fn);
}

export function batched(check: () => Promise<boolean>): () => Promise<boolean> {
  let running = false;
  let next: { promise: Promise<boolean>; resolve: (ok: boolean) => void } | undefined;
  // The start count of the latest check that succeeded.
  let provenFrom = -1;

  const start = () => {
    const batch = next;
    if (!batch || running) return;
    next = undefined;
    running = true;
    const startedAs = ++started;
    check()
      .catch(() => false)
      .then((ok) => {
        running = false;
        if (ok && startedAs > provenFrom) provenFrom = startedAs;
        batch.resolve(ok);
        start();
      });
  };

  return () => {
    const arrival = arrivals.getStore();
    // A check started after this request arrived has succeeded: it proves this lookup too.
    if (arrival !== undefined && provenFrom > arrival) return Promise.resolve(true);
    if (!next) {
      let resolve!: (ok: boolean) => void;
      const promise = new Promise<boolean>((r) => (resolve = r));
      next = { promise, resolve };
      // Callers of the same turn join this batch before it is sent.
      queueMicrotask(start);
    }
    return next.promise;
  };
}
