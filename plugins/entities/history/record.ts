/**
 * Recording history: every change to a workspace record (saved request, document, folder,
 * collection, environment, snippet, live server, live page) writes one revision row — a snapshot
 * of the record's whole row, with who made the change, from where and in which request — inside
 * the change's own transaction. That row is also the change's audit event: the audit log reads
 * workspace changes from here (plugins/audit), so a change costs one row, not two. Versions count
 * from 1 (created) and grow by one per revision.
 */
import type { Context } from 'hono';
import { originOf, type AuditScope } from '../../../kernel/audit.ts';
import type { HistoryConfig } from '../../../kernel/config/sections.ts';
import { preconditionFailed } from '../../../kernel/errors.ts';
import type { EventBus } from '../../../kernel/events.ts';
import { parseIfMatch } from '../../../kernel/http/if-match.ts';
import { usersTable } from '../../../kernel/identity/tables.ts';
import type { KernelEnv } from '../../../kernel/plugin.ts';
import { timeOrderedId } from '../../../kernel/time-id.ts';
import type { CopyOfUpdate, Store } from '../../../kernel/storage/contract.ts';
import type { Table } from '../../../kernel/storage/table.ts';
import { jsonBytes } from '../../../kernel/storage/versioned.ts';
import { capRevisions } from './removal.ts';
import { assertHistoryBudget, tallyRevisions, type UsageLedger } from './usage.ts';
import { revisionsTable, trashTable, type RevisionAction, type RevisionRow } from './tables.ts';
import type { HistoryKind } from '../kinds/index.ts';

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

type RevisionHead = Omit<RevisionRow, 'recordId' | 'version' | 'snapshot' | 'size'>;

/** A revision's own columns: its id, the change and who asked for it (through `store`). */
function revisionHead(store: Store, change: Omit<Change, 'row'>): RevisionHead {
  const scope = change.scope !== undefined ? change.scope : store.context.audit;
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
  size: jsonBytes(change.row),
});

/** What recording history needs of the plugin: its events, the `history` section, the usage. */
export interface HistoryDeps {
  events: EventBus;
  history: () => HistoryConfig;
  usage: UsageLedger;
}

/**
 * The revision of an update made with `updateVersioned` (kernel/storage/versioned.ts): the
 * storage writes the changed row and this revision of it together, through `store`, and tells
 * `sized` the revision's size (for the history usage, once the write has committed).
 */
export const revisionOfUpdate = (
  store: Store,
  change: Omit<Change, 'row'>,
  sized: (bytes: number) => void,
): CopyOfUpdate => ({
  into: revisionsTable,
  row: revisionHead(store, change),
  recordColumn: 'recordId',
  versionColumn: 'version',
  snapshotColumn: 'snapshot',
  sizeColumn: 'size',
  sized,
});

/** Whether each deleting actor is an admin (or, without one, the command line). */
async function adminActors(tx: Store, changes: readonly Change[]): Promise<Map<string, boolean>> {
  const ids = [...new Set(changes.flatMap((change) => (change.actorId ? [change.actorId] : [])))];
  const admins = new Map(ids.map((id) => [id, false]));
  if (ids.length > 0)
    for (const user of await tx.table(usersTable).getMany(ids))
      admins.set(user.id, user.role === 'admin');
  return admins;
}

/**
 * Writes the revisions of `changes` (one statement) in `tx`, with their sizes in the history
 * usage, and the trash entries of deletes; then keeps each record within
 * `history.maxRevisionsPerRecord`. A change other than a deletion is refused (409) when its
 * author's or the tenant's history has reached its budget.
 */
export async function recordChanges(
  tx: Store,
  deps: HistoryDeps,
  changes: readonly Change[],
): Promise<void> {
  if (changes.length === 0) return;
  const history = deps.history();
  for (const actorId of new Set(
    changes.filter((change) => change.action !== 'deleted').map((change) => change.actorId),
  ))
    await assertHistoryBudget(tx, deps.usage, history, actorId);
  const revisions = changes.map((change) => revisionRow(tx, change));
  await tx.table(revisionsTable).insertMany(revisions);
  await tallyRevisions(tx, revisions, 1);
  const deleted = changes.filter((change) => change.action === 'deleted');
  if (deleted.length > 0) {
    const admins = await adminActors(tx, deleted);
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
        byAdmin: change.actorId === null || admins.get(change.actorId) === true,
      })),
    );
  }
  const removed = await capRevisions(
    tx,
    deps.events,
    history.maxRevisionsPerRecord,
    changes.map((change) => ({ recordId: change.row.id, version: change.row.version })),
  );
  await tallyRevisions(tx, removed, -1);
}

/**
 * Inserts new rows into `table` with the `created` revisions of `changes` (one per row), all or
 * none: one statement on PostgreSQL (`Store.insertAll`). The caller checks the budget before
 * ({@link assertHistoryBudget}) and counts the revisions' sizes ({@link createdSize}) in the
 * history usage.
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

/** The size of the `created` revision of `row` (as {@link insertCreated} records it). */
export const createdSize = (row: VersionedRow): number => jsonBytes(row);

/** One change, see {@link recordChanges}. */
export function recordChange(tx: Store, deps: HistoryDeps, change: Change): Promise<void> {
  return recordChanges(tx, deps, [change]);
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
