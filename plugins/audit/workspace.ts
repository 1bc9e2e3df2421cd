/**
 * Workspace changes in the audit log. Each change's revision (entities' change log) already says
 * who made it, when, from where and in which request, so the log reads workspace events from the
 * revisions instead of writing a second row per change. A revision pruned while the log still
 * keeps its event (`history.auditKeepDays` outlasting `keepDays` or `maxRevisionsPerRecord`) is
 * copied here in the pruning transaction, under the same id.
 */
import type { EventBus } from '../../kernel/events.ts';
import { REVISIONS_PRUNED, type ChangeRow, type RevisionsPrunedEvent } from '../entities/index.ts';
import { auditEventsTable, type AuditEventRow } from './tables.ts';

const DAY_MS = 86_400_000;

/** The `<kind>.<action>` event of a change. */
export function changeEvent(row: ChangeRow): AuditEventRow {
  const name = row.snapshot['name'];
  return {
    id: row.id,
    at: row.at,
    action: `${row.kind}.${row.action}`,
    actorId: row.actorId,
    actorName: row.actorName,
    targetKind: row.kind,
    targetId: row.recordId,
    targetName: typeof name === 'string' ? name : '',
    ip: row.ip,
    requestId: row.requestId,
    details: row.via ? { version: row.version, via: row.via } : { version: row.version },
  };
}

/** The oldest time the log keeps (`keepDays` 0: forever). */
export const keptSince = (keepDays: number, now: Date): string | undefined =>
  keepDays > 0 ? new Date(now.getTime() - keepDays * DAY_MS).toISOString() : undefined;

/** Copies the events of pruned revisions the log still keeps, in the pruning transaction. */
export function keepPrunedChanges(
  events: EventBus,
  keepDays: () => number,
  now: () => Date,
): () => void {
  return events.subscribe<RevisionsPrunedEvent>(REVISIONS_PRUNED, async (event) => {
    const since = keptSince(keepDays(), now());
    const kept = event.revisions.filter((row) => since === undefined || row.at >= since);
    if (kept.length > 0)
      await event.store.table(auditEventsTable).insertMany(kept.map(changeEvent));
  });
}
