/**
 * Logs outages of the hub's dependencies (the database, Redis) as transitions instead of one line
 * per failed request: one `error` line when the first request fails (with the cause), a `warn` line
 * every `reportEveryMs` with how many requests failed meanwhile, and one `info` line when the
 * dependency answers again (with how long it was down). Recovery is noticed by probing the
 * dependency once per `probeEveryMs` while it is down, so it is logged even when no request comes.
 */
import type { Logger } from './log.ts';
import { StorageError } from './storage/contract.ts';
import { ThrottleUnavailableError } from './throttle/contract.ts';

export type Dependency = 'Database' | 'Redis';

export interface OutageLogOptions {
  /** Throws while the dependency is still down. */
  probes: Record<Dependency, () => Promise<void>>;
  /** @default 1000 */
  probeEveryMs?: number;
  /** @default 30000 */
  reportEveryMs?: number;
  now?: () => number;
}

export interface OutageLog {
  /** Counts a request that failed with `error` when the error means a dependency is down; else does nothing. */
  note(error: unknown): void;
  /** Whether the dependency is currently counted as down. */
  isDown(dependency: Dependency): boolean;
  close(): void;
}

/** Which dependency an error says is down, if any. */
export function unavailableDependency(error: unknown): Dependency | null {
  if (error instanceof StorageError && error.code === 'unavailable') return 'Database';
  if (error instanceof ThrottleUnavailableError) return 'Redis';
  return null;
}

/** The innermost cause, as `message (code)`: what the operator needs to know. */
export function describeCause(error: unknown): string {
  let inner: unknown = error;
  for (let depth = 0; depth < 5 && inner instanceof Error && inner.cause instanceof Error; depth++)
    inner = inner.cause;
  if (!(inner instanceof Error)) return String(inner);
  const code = (inner as { code?: unknown }).code;
  const message = inner.message || inner.name;
  return typeof code === 'string' && code && !message.includes(code)
    ? `${message} (${code})`
    : message;
}

interface Outage {
  since: number;
  cause: string;
  failed: number;
  failedSinceReport: number;
  report: ReturnType<typeof setInterval>;
  probe: ReturnType<typeof setTimeout> | undefined;
}

function unref(timer: unknown): void {
  (timer as { unref?: () => void }).unref?.();
}

export function createOutageLog(log: Logger, options: OutageLogOptions): OutageLog {
  const probeEveryMs = options.probeEveryMs ?? 1000;
  const reportEveryMs = options.reportEveryMs ?? 30_000;
  const now = options.now ?? Date.now;
  const outages = new Map<Dependency, Outage>();
  let closed = false;

  const end = (dependency: Dependency, outage: Outage) => {
    clearInterval(outage.report);
    clearTimeout(outage.probe);
    outages.delete(dependency);
  };

  const scheduleProbe = (dependency: Dependency, outage: Outage) => {
    outage.probe = setTimeout(async () => {
      if (closed || outages.get(dependency) !== outage) return;
      try {
        await options.probes[dependency]();
      } catch {
        if (!closed && outages.get(dependency) === outage) scheduleProbe(dependency, outage);
        return;
      }
      if (closed || outages.get(dependency) !== outage) return;
      end(dependency, outage);
      const downForMs = now() - outage.since;
      log.info(`${dependency} available again after ${(downForMs / 1000).toFixed(1)} s`, {
        dependency,
        downForMs,
        failedRequests: outage.failed,
      });
    }, probeEveryMs);
    unref(outage.probe);
  };

  return {
    note(error) {
      const dependency = unavailableDependency(error);
      if (!dependency || closed) return;
      let outage = outages.get(dependency);
      if (!outage) {
        const cause = describeCause(error);
        log.error(`${dependency} unavailable; requests get 503 until it answers again`, {
          dependency,
          cause,
        });
        const started: Outage = {
          since: now(),
          cause,
          failed: 0,
          failedSinceReport: 0,
          report: setInterval(() => {
            log.warn(`${dependency} still unavailable`, {
              dependency,
              downForMs: now() - started.since,
              failedRequests: started.failedSinceReport,
              cause: started.cause,
            });
            started.failedSinceReport = 0;
          }, reportEveryMs),
          probe: undefined,
        };
        unref(started.report);
        outages.set(dependency, started);
        scheduleProbe(dependency, started);
        outage = started;
      } else outage.cause = describeCause(error);
      outage.failed += 1;
      outage.failedSinceReport += 1;
    },
    isDown: (dependency) => outages.has(dependency),
    close() {
      closed = true;
      for (const [dependency, outage] of outages) end(dependency, outage);
    },
  };
}
