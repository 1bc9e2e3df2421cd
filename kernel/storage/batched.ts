/**
 * One check shared by every caller that arrived while no check had started yet.
 *
 * A caller must be answered by a check that began after it arrived (a check begun earlier proves
 * nothing about writes acknowledged just before the caller came). So while one check runs, new
 * callers gather for the next, which starts as soon as the running one ends: however many callers
 * come, at most one check runs and one waits to start.
 */
export function batched(check: () => Promise<boolean>): () => Promise<boolean> {
  let running = false;
  let next: { promise: Promise<boolean>; resolve: (ok: boolean) => void } | undefined;

  const start = () => {
    const batch = next;
    if (!batch || running) return;
    next = undefined;
    running = true;
    check()
      .catch(() => false)
      .then((ok) => {
        running = false;
        batch.resolve(ok);
        start();
      });
  };

  return () => {
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
