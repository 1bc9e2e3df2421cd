/**
 * The tables of history: revisions of workspace records, the trash of deleted ones, and the bytes
 * the revisions take per author and tenant.
 */
import { IP_MAX, REQUEST_ID_MAX } from '../../../kernel/audit.ts';
import {
  col,
  defineTable,
  equalitiesThenId,
  type RowOfTable,
} from '../../../kernel/storage/table.ts';
import { NAME_MAX } from '../schemas.ts';

export const REVISION_ACTIONS = ['created', 'updated', 'moved', 'deleted', 'restored'] as const;
export type RevisionAction = (typeof REVISION_ACTIONS)[number];

/**
 * One revision of a record: a snapshot of its whole row after the change (before it, for
 * `deleted`), and who made it. It is also the change's audit event. Kept lean, as every write adds
 * one: ids are time-ordered (kernel/time-id.ts: new rows land at the end of the primary key, and a
 * time range is a range of it), and the only other index is the record's versions.
 */
export const revisionsTable = defineTable({
  name: 'revisions',
  columns: {
    id: col.id(),
    /** The record's kind: a `HistoryKind` of the registry (kinds/index.ts). */
    kind: col.string(16),
    recordId: col.id(),
    version: col.int(),
    action: col.string<RevisionAction>(16),
    at: col.timestamp(),
    actorId: col.idNullable(),
    /** Who, from where and in which request (the audit log's view of the change). */
    actorName: col.stringNullable(255),
    ip: col.stringNullable(IP_MAX),
    requestId: col.stringNullable(REQUEST_ID_MAX),
    /** `cli` for a change made by a command on the server's machine. */
    via: col.stringNullable(16),
    snapshot: col.json<Record<string, unknown>>(),
    /** The snapshot's bytes as stored, counted in its author's and tenant's history usage. */
    size: col.int(),
  },
  // (tenant, id): the audit log's view, newest first. With only the primary key, SQLite met the
  // tenant's equality with the record index and sorted every revision of the tenant, snapshots and
  // all (15 ms at 20 000 revisions, growing with the history).
  indexes: [['recordId', 'version'], ['id']],
  // The audit log's view (newest first, by any mix of actor, kind and action, and record) and
  // pruning's key ranges walk the id order on SQL; Firestore needs an index per shape.
  firestoreIndexes: equalitiesThenId([['actorId'], ['kind', 'action'], ['recordId']]),
  // Read only by the history routes, never through a cache: no change signal per revision.
  changeFeed: false,
});

/**
 * The deleted records that can come back (id: the record's), written only by deletes and removed
 * by their restore. `cause` is, for a record deleted with its folder or collection, that folder's
 * or collection's id (it comes back with it); `version` names its `deleted` revision.
 */
export const trashTable = defineTable({
  name: 'trash',
  columns: {
    id: col.id(),
    /** The record's kind, as in its revisions. */
    kind: col.string(16),
    collectionId: col.idNullable(),
    name: col.string(NAME_MAX),
    version: col.int(),
    at: col.timestamp(),
    actorId: col.idNullable(),
    cause: col.idNullable(),
    /** Deleted by an admin (or the command line): only an admin may bring it back. */
    byAdmin: col.bool(),
  },
  indexes: [['collectionId', 'cause', 'at'], ['cause'], ['at']],
});

/**
 * History usage counters: the bytes of the revisions kept, per author (`u:<user id>:<shard>`) and
 * per tenant (`t:<tenant id>:<shard>`), changed in the transaction that writes or removes the
 * revisions. Each scope has {@link USAGE_SHARDS} rows and a write adds to one picked at random, so
 * concurrent writers seldom wait on one row; the usage is their sum.
 */
export const historyUsageTable = defineTable({
  name: 'history_usage',
  columns: { id: col.id(), bytes: col.int() },
  // Read by id only, and changed by almost every write: never cached.
  changeFeed: false,
});

export const USAGE_SHARDS = 16;

export type RevisionRow = RowOfTable<typeof revisionsTable>;
export type TrashRow = RowOfTable<typeof trashTable>;
