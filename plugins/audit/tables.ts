/**
 * The audit log: one row per security or administrative event, append-only (nothing updates a
 * row; only retention deletes the old ones). Indexes serve the filters of `GET /admin/audit`,
 * newest first. Workspace changes are read from their revisions (workspace.ts) and land here only
 * when their revision is pruned before the log's retention is over.
 */
import { IP_MAX, REQUEST_ID_MAX } from '../../kernel/audit.ts';
import { col, defineTable, equalitiesThenId, type RowOfTable } from '../../kernel/storage/table.ts';
import { cleanDetails, cleanNullable, cleanText, NAME_MAX } from './clean.ts';

/** Longest target id kept (a config file path may be longer; it is cut). */
export const TARGET_ID_MAX = 255;
/** Longest action (`<noun>.<verb>`) and target kind. */
export const ACTION_MAX = 64;
export const KIND_MAX = 32;
/** Longest actor id: an id column's. */
export const ACTOR_ID_MAX = 128;

export const auditEventsTable = defineTable({
  name: 'audit_events',
  columns: {
    id: col.id(),
    at: col.timestamp(),
    action: col.string(ACTION_MAX),
    actorId: col.idNullable(),
    actorName: col.stringNullable(NAME_MAX),
    targetKind: col.string(KIND_MAX),
    targetId: col.string(TARGET_ID_MAX),
    targetName: col.text(),
    ip: col.stringNullable(IP_MAX),
    requestId: col.stringNullable(REQUEST_ID_MAX),
    details: col.json<Record<string, unknown>>(),
  },
  // Ids are time-ordered (kernel/time-id.ts): the log's order, newest first. The unfiltered page
  // (the console's overview) needs its own (tenant, id) index: with only the primary key, SQLite
  // met `tenant_id = ?` with a filter index and sorted the whole log (16 ms at 10 000 events).
  indexes: [['id'], ['actorId', 'id'], ['action', 'id'], ['targetId', 'id']],
  // The whole log newest first by any mix of its filters, and retention's key range, per tenant.
  firestoreIndexes: equalitiesThenId([['actorId'], ['action'], ['targetId']]),
  // Read only by the audit routes and the CLI, never through a cache: no change signal per event.
  changeFeed: false,
});

export type AuditEventRow = RowOfTable<typeof auditEventsTable>;

/** An event as `GET /admin/audit`, the CLI and the JSON-lines export show it. */
export interface AuditEventRecord {
  id: string;
  at: string;
  action: string;
  actor: { id: string; name: string } | null;
  target: { kind: string; id: string; name: string };
  tenantId: string | null;
  ip: string | null;
  requestId: string | null;
  details: Record<string, unknown>;
}

/**
 * The record of a row, every string escaped and capped again ({@link cleanText}): rows stored
 * before the log escaped them, and workspace events read from revisions, are shown the same way.
 */
export function toAuditEventRecord(row: AuditEventRow, tenantId: string | null): AuditEventRecord {
  return {
    id: row.id,
    at: row.at,
    action: cleanText(row.action, ACTION_MAX),
    actor: row.actorId
      ? {
          id: cleanText(row.actorId, ACTOR_ID_MAX),
          name: cleanText(row.actorName ?? '', NAME_MAX),
        }
      : null,
    target: {
      kind: cleanText(row.targetKind, KIND_MAX),
      id: cleanText(row.targetId, TARGET_ID_MAX),
      name: cleanText(row.targetName, NAME_MAX),
    },
    tenantId,
    ip: cleanNullable(row.ip, IP_MAX),
    requestId: cleanNullable(row.requestId, REQUEST_ID_MAX),
    details: cleanDetails(row.details) as Record<string, unknown>,
  };
}
