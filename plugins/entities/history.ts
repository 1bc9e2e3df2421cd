/**
 * Recording history: every change to a workspace record (saved request, document, folder,
 * collection, environment, snippet, live server, live page) writes one revision row — a snapshot
 * of the record's whole row — inside the change's own transaction, and announces it on the event
 * bus in that transaction (`entities.changed`), so another plugin (the audit log) can add its own
 * rows to the same commit. Versions count from 1 (created) and grow by one per revision.
 */
import type { Context } from 'hono';
import { preconditionFailed } from '../../kernel/errors.ts';
import { newId } from '../../kernel/identity/secrets.ts';
import type { KernelEnv } from '../../kernel/plugin.ts';
import type { Store } from '../../kernel/storage/contract.ts';
import type { EntityDeps } from './access.ts';
import {
  revisionsTable,
  trashTable,
  type HistoryKind,
  type RevisionAction,
  type RevisionRow,
} from './tables.ts';

/** Event topic published inside the transaction of every recorded revision. */
export const ENTITY_CHANGED = 'entities.changed';

/**
 * A workspace record changed. Published with `publishInTransaction`, once per revision: a
 * handler's writes go through `store` and commit or roll back with the change.
 */
export interface EntityChangedEvent {
  /** The store of the transaction that changes the record. */
  store: Store;
  tenantId: string | null;
  kind: HistoryKind;
  id: string;
  name: string;
  action: RevisionAction;
  /** Null when the change was not made by a user (the CLI). */
  actorId: string | null;
  version: number;
}

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
}

let lastTime = 0;
let sequence = 0;
/** The leading characters of the revision ids made at `ms` (hub clock): base 36, fixed width. */
export const revisionTimePrefix = (ms: number) => Math.max(0, ms).toString(36).padStart(9, '0');

/**
 * A revision id that sorts by the time of its change (the hub's clock), then by a counter, then
 * randomness: the primary key grows at its end instead of at random places, and pruning by age
 * is a range of it. Only `[0-9a-z]`, so every database collation orders them alike.
 */
function revisionId(at: string): string {
  const ms = Date.parse(at);
  sequence = ms === lastTime ? sequence + 1 : 0;
  lastTime = ms;
  const random = newId().replace(/-/g, '').slice(0, 16);
  return `${revisionTimePrefix(ms)}${sequence.toString(36).padStart(4, '0')}${random}`;
}

/** Writes the revisions of `changes` (one statement) and announces each, inside `tx`. */
export async function recordChanges(
  tx: Store,
  deps: EntityDeps,
  changes: readonly Change[],
): Promise<void> {
  if (changes.length === 0) return;
  const rows: RevisionRow[] = changes.map((change) => ({
    id: revisionId(change.at),
    kind: change.kind,
    recordId: change.row.id,
    version: change.row.version,
    action: change.action,
    at: change.at,
    actorId: change.actorId,
    snapshot: { ...change.row },
  }));
  await tx.table(revisionsTable).insertMany(rows);
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
  for (const change of changes) {
    await deps.events.publishInTransaction<EntityChangedEvent>(ENTITY_CHANGED, {
      store: tx,
      tenantId: tx.tenantId,
      kind: change.kind,
      id: change.row.id,
      name: change.row.name,
      action: change.action,
      actorId: change.actorId,
      version: change.row.version,
    });
  }
}

/** One change, see {@link recordChanges}. */
export function recordChange(tx: Store, deps: EntityDeps, change: Change): Promise<void> {
  return recordChanges(tx, deps, [change]);
}

/**
 * The version an `If-Match` header asks for: undefined without the header (no check), `*`
 * matches any existing record. Anything else that is not a quoted or bare version never matches.
 */
export function expectedVersion(header: string | undefined): number | '*' | null | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  if (value === '*') return '*';
  const match = /^(?:W\/)?"?(\d{1,9})"?$/.exec(value);
  return match ? Number(match[1]) : null;
}

/** 412 with the current record unless `expected` (from {@link expectedVersion}) matches. */
export function checkVersion(
  expected: number | '*' | null | undefined,
  row: { version: number },
  current: () => object,
): void {
  if (expected === undefined || expected === '*' || expected === row.version) return;
  throw preconditionFailed(current(), etagOf(row));
}

/** The `ETag` of a record at this version. */
export const etagOf = (row: { version: number }) => `"${row.version}"`;

/** Answers a written record with its new `ETag`. */
export function answerRecord(c: Context<KernelEnv>, record: object, row: { version: number }) {
  c.header('ETag', etagOf(row));
  return c.json(record);
}
