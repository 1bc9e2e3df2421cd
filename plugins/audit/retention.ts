/**
 * Retention: events older than `history.auditKeepDays` days (0 keeps them forever) are deleted,
 * tenant by tenant, at start, every hour and after a reload of the section. Workspace changes
 * still in their revisions are hidden by age when read (query.ts).
 */
import type { Clock } from '../../kernel/clock.ts';
import type { Logger } from '../../kernel/log.ts';
import type { Store } from '../../kernel/storage/contract.ts';
import type { TenantRow } from '../../kernel/identity/tables.ts';
import { idAtOrAfter } from '../../kernel/time-id.ts';
import { auditEventsTable } from './tables.ts';
import { keptSince } from './workspace.ts';

export const PRUNE_EVERY_MS = 60 * 60 * 1000;

export interface PruneDeps {
  tenants(): Promise<readonly TenantRow[]>;
  storage(tenantId: string): Store;
}

/** Deletes every event older than `keepDays` days before `now`; returns how many went. */
export async function pruneAuditEvents(
  deps: PruneDeps,
  keepDays: number,
  now: Date,
): Promise<number> {
  const since = keptSince(keepDays, now);
  if (since === undefined) return 0;
  // Ids begin with their time: older events are a range of the primary key.
  const cutoff = idAtOrAfter(since);
  let deleted = 0;
  for (const tenant of await deps.tenants()) {
    deleted += await deps
      .storage(tenant.id)
      .table(auditEventsTable)
      .deleteWhere({ id: { lt: cutoff } });
  }
  return deleted;
}

/**
 * Prunes every hour until `signal` aborts; `run` prunes now (with the configured days unless
 * told). A failure is logged and tried again at the next run. `settled` waits for a run in
 * progress (the hub closes the database after).
 */
export function schedulePruning(
  deps: PruneDeps & { keepDays(): number; clock: Clock; log: Logger; signal: AbortSignal },
): { run(keepDays?: number): Promise<void>; settled(): Promise<void> } {
  let current: Promise<void> = Promise.resolve();
  const once = async (keepDays: number) => {
    try {
      const deleted = await pruneAuditEvents(deps, keepDays, deps.clock.now());
      if (deleted > 0) deps.log.info('Pruned old audit events', { deleted });
    } catch (error) {
      if (!deps.signal.aborted)
        deps.log.warn('Pruning the audit log failed; it is tried again later', { error });
    }
  };
  // A reload passes the new value: the section is committed only after every plugin applied it.
  const run = (keepDays?: number) =>
    (current = current.then(() => once(keepDays ?? deps.keepDays())));
  const timer = setInterval(() => void run(), PRUNE_EVERY_MS);
  (timer as { unref?: () => void }).unref?.();
  deps.signal.addEventListener('abort', () => clearInterval(timer), { once: true });
  return { run, settled: () => current };
}
