/**
 * Recording history: every change to a workspace record (saved request, document, folder,
 * collection, environment, snippet, live server, live page) writes one revision row — a snapshot
 * of the record's whole row, with who made the change, from where and in which request — inside
 * the change's own transaction. That row is also the change's audit event: the audit log reads
 * workspace changes from here (plugins/audit), so a change costs one row, not two. Versions count
 * from 1 (created) and grow by one per revision.
 */
import type { Context } from 'hono';
import { auditScopeOf, originOf, type AuditScope } from '../../kernel/audit.ts';
import { preconditionFailed } from '../../kernel/errors.ts';
import { parseIfMatch } from '../../kernel/http/if-match.ts';
import type { KernelEnv } from '../../kernel/plugin.ts';
import { timeOrderedId } from '../../kernel/time-id.ts';
import type { CopyOfUpdate, Store } from '../../kernel/storage/contract.ts';
import type { Table } from '../../kernel/storage/table.ts';
import {
  revisionsTable,
  trashTable,
  type HistoryKind,
  type RevisionAction,
  type RevisionRow,
} from './tables.ts';

/** What a revision needs of a row: every row of a versioned table has these. */
export interface VersionedRow {
  id: string;
  name: string;
  version: number;
  collectionId?: string | null;
}

export interface Change {
  kind: HistoryKind;
  /** The row after the change (before it, for `deleted`), with the revision's version. */
  row: VersionedRow;
  action: RevisionAction;
  actorId: string | null;
  at: string;
  /** For a record removed with its folder or collection: that folder's or collection's id. */
  cause?: string | null;
  /**
   * The request (or CLI run) that asked for the change, when it is not the one running the
   * transaction: a grouped create writes the rows of several requests.
   */
  scope?: AuditScope | null;
}

type RevisionHead = Omit<RevisionRow, 'recordId' | 'version' | 'snapshot'>;

/** A revision's own columns: its id, the change and who asked for it (through `store`). */
function revisionHead(store: Store, change: Omit<Change, 'row'>): RevisionHead {
  const scope = change.scope !== undefined ? change.scope : auditScopeOf(store);
  const actor = scope?.actor();
  return {
    id: timeOrderedId(change.at),
    kind: change.kind,
    action: change.action,
    at: change.at,
    actorId: change.actorId,
    actorName: actor && actor.id === change.actorId ? actor.name : null,
    ...originOf(scope),
    via: scope?.via ?? null,
  };
}

const revisionRow = (store: Store, change: Change): RevisionRow => ({
  ...revisionHead(store, change),
  recordId: change.row.id,
  version: change.row.version,
  snapshot: { ...change.row },
});

/**
 * The revision of an update made with `updateVersioned` (kernel/storage/versioned.ts): the
 * storage writes the changed row and this revision of it together, through `store`.
 */
export const revisionOfUpdate = (store: Store, change: Omit<Change, 'row'>): CopyOfUpdate => ({
  into: revisionsTable,
  row: revisionHead(store, change),
  recordColumn: 'recordId',
  versionColumn: 'version',
  snapshotColumn: 'snapshot',
});

/** Writes the revisions of `changes` (one statement), and the trash entries of deletes, in `tx`. */
export async function recordChanges(tx: Store, changes: readonly Change[]): Promise<void> {
  if (changes.length === 0) return;
  await tx.table(revisionsTable).insertMany(changes.map((change) => revisionRow(tx, change)));
  const deleted = changes.filter((change) => change.action === 'deleted');
  if (deleted.length > 0)
    await tx.table(trashTable).insertMany(
      deleted.map((change) => ({
        id: change.row.id,
        kind: change.kind,
        collectionId: change.row.collectionId ?? null,
        name: change.row.name,
        version: change.row.version,
        at: change.at,
        actorId: change.actorId,
        cause: change.cause ?? null,
      })),
    );
}

/**
 * Inserts new rows into `table` with the `created` revisions of `changes` (one per row), all or
 * none: one statement on PostgreSQL (`Store.insertAll`).
 */
export function insertCreated(
  tx: Store,
  table: Table,
  rows: readonly Record<string, unknown>[],
  changes: readonly Change[],
): Promise<void> {
  return tx.insertAll([
    { table, rows },
    { table: revisionsTable, rows: changes.map((change) => revisionRow(tx, change)) },
  ]);
}

/** One change, see {@link recordChanges}. */
export function recordChange(tx: Store, change: Change): Promise<void> {
  return recordChanges(tx, [change]);
}

/** The versions an `If-Match` header asks for (see kernel/http/if-match.ts); 400 when malformed. */
export const expectedVersion = parseIfMatch;

/** 412 with the current record unless `expected` (from {@link expectedVersion}) matches. */
export function checkVersion(
  expected: readonly number[] | '*' | undefined,
  row: { version: number },
  current: () => object,
): void {
  if (expected === undefined || expected === '*' || expected.includes(row.version)) return;
  throw preconditionFailed(current(), etagOf(row));
}

/** The `ETag` of a record at this version. */
export const etagOf = (row: { version: number }) => `"${row.version}"`;

/** Answers a written record with its new `ETag`. */
export function answerRecord(c: Context<KernelEnv>, record: object, row: { version: number }) {
  c.header('ETag', etagOf(row));
  return c.json(record);
}
