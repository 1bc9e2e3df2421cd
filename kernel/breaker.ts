/**
 * A circuit breaker for one dependency (the database, Redis). Without one, every request during a
 * stall waits out the whole timeout (`db.queryTimeoutMillis`, a Redis command timeout) before its
 * 503, so clients see hangs. Once a call has shown the dependency stalled — it ran out of time, or
 * a connection to it could not be made — the breaker opens: calls fail at once (503 with
 * `Retry-After`), and a single background probe at a time asks the dependency, again
 * {@link PROBE_EVERY_MS} after each failed probe. The first probe that answers closes it, so the
 * hub serves again as soon as the dependency does. Ordinary failures (a constraint, a conflict, a
 * server-side error reply) never open it: the dependency answered them.
 */

/** Pause between a failed probe and the next one while the breaker is open. */
export const PROBE_EVERY_MS = 250;

/** What `/readyz` and the drivers' callers read. */
export interface Circuit {
  /** `database` or `redis`: how `/readyz` names it. */
  readonly name: string;
  /** True while calls fail at once. */
  isOpen(): boolean;
}

export interface CircuitBreaker extends Circuit {
  /** The error that opened the breaker (while open). */
  readonly cause: unknown;
  /**
   * Opens the breaker because a call stalled. `startedAt` (ms, as `Date.now()`) is when that call
   * began: a call older than the last successful probe says nothing about the dependency now.
   */
  trip(cause: unknown, startedAt?: number): void;
  /** Stops probing for good (the connection is being closed). */
  dispose(): void;
}

export interface CircuitBreakerOptions {
  name: string;
  /** One trial call; resolves when the dependency answers. Bounded by the caller's own timeouts. */
  probe: () => Promise<void>;
  /** @default PROBE_EVERY_MS */
  probeEveryMs?: number;
  now?: () => number;
}

export function createCircuitBreaker(options: CircuitBreakerOptions): CircuitBreaker {
  const probeEveryMs = options.probeEveryMs ?? PROBE_EVERY_MS;
  const now = options.now ?? Date.now;
  let open = false;
  let cause: unknown;
  let closedAt = -Infinity;
  let probing = false;
  let disposed = false;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const probe = () => {
    timer = undefined;
    if (disposed || !open || probing) return;
    probing = true;
    const started = now();
    options.probe().then(
      () => {
        probing = false;
        if (disposed || !open) return;
        open = false;
        cause = undefined;
        closedAt = started;
      },
      () => {
        probing = false;
        if (disposed || !open) return;
        timer = setTimeout(probe, probeEveryMs);
        (timer as { unref?: () => void }).unref?.();
      },
    );
  };

  return {
    name: options.name,
    isOpen: () => open,
    get cause() {
      return cause;
    },
    trip(error, startedAt) {
      if (disposed || (startedAt !== undefined && startedAt < closedAt)) return;
      cause = error;
      if (open) return;
      open = true;
      // At once: the first probe is usually already waiting when the dependency comes back.
      probe();
    },
    dispose() {
      disposed = true;
      open = false;
      clearTimeout(timer);
    },
  };
}
