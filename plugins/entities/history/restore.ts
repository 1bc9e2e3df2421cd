/**
 * Restoring a revision. A record that exists gets the revision's content back (its name, fields,
 * marker) and keeps where it is now (collection, folder, position), its deletion lock and, for an
 * environment, its parent. A deleted record comes back, for whoever may undo its deletion (see
 * assertMayUndelete), with the same id and its deletion lock, where it was when deleted:
 * into its folder if that still exists, else the collection root; at its old position unless a
 * sibling holds it now, else last; a 409 when its collection is gone. A folder or collection comes
 * back with the folders, saved requests and documents its deletion removed. Every restored record
 * gets a `restored` revision.
 */
import { conflict, forbidden, notFound } from '../../../kernel/errors.ts';
import { canCreate } from '../../../kernel/identity/access.ts';
import type { UserRow } from '../../../kernel/identity/tables.ts';
import { StorageError, type Store } from '../../../kernel/storage/contract.ts';
import type { Table } from '../../../kernel/storage/table.ts';
import type { EntityDeps } from '../deps.ts';
import { recordChanges, type Change, type VersionedRow } from './record.ts';
import { assertSubjectAccess, type HistorySubject } from './subjects.ts';
import { assertHistoryBudget } from './usage.ts';
import { nextSortOrder } from '../ordering.ts';
import { CONTAINED_KINDS, FOLDER_KIND, kind, kindNamed, type HistoryKind } from '../kinds/index.ts';
import { collectionsTable, environmentsTable, foldersTable } from '../tables.ts';
import { revisionsTable, trashTable, type RevisionRow, type TrashRow } from './tables.ts';

type Row = VersionedRow & Record<string, unknown>;

/** What a restore of an existing record leaves as it is now. */
const KEPT = [
  'id',
  'collectionId',
  'folderId',
  'parentFolderId',
  'parentUuid',
  'sortOrder',
  'deletionLocked',
  'createdAt',
  'createdByUserId',
  'updatedAt',
  'updatedByUserId',
  'version',
];

const contentOf = (snapshot: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(snapshot).filter(([key]) => !KEPT.includes(key)));

/** The tables of what a folder's or collection's deletion takes with it, by kind. */
const CHILD_TABLES = new Map<string, Table>(CONTAINED_KINDS.map((kind) => [kind.name, kind.table]));

/** The parent column of a collection-bound row, and the table its siblings are in. */
function parentOf(name: HistoryKind): { column: 'folderId' | 'parentFolderId'; table: Table } {
  return {
    column: name === FOLDER_KIND.name ? 'parentFolderId' : 'folderId',
    table: kind(name).table,
  };
}

/**
 * 403 unless `user` may undo this deletion: an admin's (or the command line's) only an admin may;
 * a top-level record also takes the right to create one of its kind (`*` in the access list) or
 * to delete this one as it was when deleted (not locked; its creator, where only the creator may).
 * A record inside a collection takes the collection, checked already.
 */
function assertMayUndelete(
  user: UserRow,
  subject: HistorySubject,
  deleted: Record<string, unknown>,
  trash: TrashRow | null,
): void {
  // No trash entry (never the case for a deletion still in the history): treated as an admin's.
  if ((trash?.byAdmin ?? true) && user.role !== 'admin')
    throw forbidden(`An admin deleted this ${subject.noun}; only an admin can restore it.`);
  if (!subject.field || canCreate(user, subject.field)) return;
  if (deleted['deletionLocked'] === true)
    throw forbidden(
      `This ${subject.noun} was deletion-locked; restoring it takes the right to create one.`,
    );
  if (subject.creatorOnlyDelete && deleted['createdByUserId'] !== user.id)
    throw forbidden(
      `Only its creator, or someone who may create a ${subject.noun}, can restore this one.`,
    );
}

/**
 * Restores `revision` of record `id`, which the caller found live (`sawLive`) or deleted when it
 * checked access. Everything is decided again under the locks: the record's collection (for one
 * inside a collection), the record's row, and for an undelete its trash entry, which orders
 * clients undeleting the same record (the first brings it back, the others get 409); the newest
 * revision is read after them. A record deleted, undeleted or moved out of the user's reach since
 * the check is a 409 or 403, never a write into a collection the user cannot use.
 */
export async function restoreRevision(
  store: Store,
  deps: EntityDeps,
  subject: HistorySubject,
  revision: RevisionRow,
  user: UserRow,
  sawLive: boolean,
): Promise<Row> {
  // The budget before the transaction: a read that needs nothing the transaction holds.
  await assertHistoryBudget(store, deps.usage, deps.history(), user.id);
  try {
    return await store.transaction((tx) =>
      restoreIn(tx, deps, { subject, revision, user, sawLive }),
    );
  } catch (error) {
    // Two undeletes of a record the trash no longer orders (no entry): the second inserts its id.
    if (error instanceof StorageError && error.code === 'unique') throw restoredMeanwhile(subject);
    throw error;
  }
}

const restoredMeanwhile = (subject: HistorySubject) =>
  conflict(`This ${subject.noun} was restored meanwhile by another request; it exists again.`);

/** What one restore is: of which revision, by whom, and whether the route found the record live. */
interface RestoreJob {
  subject: HistorySubject;
  revision: RevisionRow;
  user: UserRow;
  sawLive: boolean;
}

async function restoreIn(tx: Store, deps: EntityDeps, job: RestoreJob): Promise<Row> {
  const { subject, revision, user, sawLive } = job;
  const id = revision.recordId;
  const now = deps.clock.iso();
  const touched = { updatedAt: now, updatedByUserId: user.id };
  const table = tx.table(subject.table);
  const newest = () =>
    tx
      .table(revisionsTable)
      .find({ where: { recordId: id }, orderBy: [['version', 'desc']], limit: 1 })
      .then(([row]) => row);
  const change = (kind: HistoryKind, row: Row): Change => ({
    kind,
    row,
    action: 'restored',
    actorId: user.id,
    at: now,
  });
  // Collection-bound records lock their collection first, like every write that plans positions:
  // where the record is now, or was when deleted (read again below, under the locks).
  const placedIn = String(
    ((await table.get(id)) ?? (await newest())?.snapshot ?? revision.snapshot)['collectionId'] ??
      '',
  );
  const collection =
    subject.placement === 'top-level'
      ? null
      : await tx.table(collectionsTable).getForUpdate(placedIn);
  let live = (await table.getForUpdate(id)) as Row | null;
  const trash = live ? null : await tx.table(trashTable).getForUpdate(id);
  // Another undelete may have committed while this one waited for the trash entry.
  if (!live && trash === null) live = (await table.getForUpdate(id)) as Row | null;
  // The revision itself may have been purged meanwhile: its content is not to come back.
  if (!(await tx.table(revisionsTable).get(revision.id))) throw notFound('Revision not found');
  if (live && !sawLive) throw restoredMeanwhile(subject);
  if (!live && sawLive)
    throw conflict(
      `This ${subject.noun} was deleted meanwhile; restore its deletion to bring it back.`,
    );
  // Restoring a deletion undoes it; a record that exists has had it undone already. Taken as a
  // restore of content, a client undoing the deletion a moment after another one did (it found
  // the record back) wrote a second `restored` revision, and with the per-record limit such
  // restores trimmed the deletion itself away (404s). Its content is the revision's before it.
  if (live && revision.action === 'deleted')
    throw conflict(
      `This ${subject.noun} exists again: its deletion was undone already; restore another revision for its content.`,
    );
  const latest = await newest();
  // Access as the record is now (it may have moved since the route checked).
  assertSubjectAccess(user, subject, id, live ?? (latest?.snapshot as Partial<VersionedRow>));
  if (live) {
    const version = live.version + 1;
    const patch = { ...contentOf(revision.snapshot), ...touched, version };
    const row = ((await table.update(id, patch)) ?? { ...live, ...patch }) as Row;
    await recordChanges(tx, deps, [change(subject.name, row)]);
    return row;
  }
  if (!latest || latest.action !== 'deleted') throw restoredMeanwhile(subject);

  // Undelete: every read first (Firestore), then the writes. What a restore keeps (placement,
  // the deletion lock, who created it) is as it was when deleted, whichever revision is restored.
  const at = latest.snapshot;
  assertMayUndelete(user, subject, at, trash);
  // Locked where it was found before the locks; moved and deleted since, it is elsewhere now.
  if (collection && collection.id !== at['collectionId'])
    throw conflict(`This ${subject.noun} changed meanwhile; try again.`);
  const version = latest.version + 1;
  const row: Row = {
    ...(at as Row),
    ...contentOf(revision.snapshot),
    ...touched,
    id,
    version,
  };
  await placeRestored(tx, subject, at, collection, row);
  const children = await deletedWith(tx, latest);
  await table.insert(row);
  const back = [id];
  for (const [kind, rows] of children) {
    await tx.table(CHILD_TABLES.get(kind)!).insertMany(rows);
    back.push(...rows.map((child) => child.id));
  }
  await tx.table(trashTable).deleteWhere({ id: { in: back } });
  await recordChanges(tx, deps, [
    change(subject.name, row),
    ...[...children].flatMap(([kind, rows]) => rows.map((child) => change(kind, child))),
  ]);
  return row;
}

/**
 * Where an undeleted record goes, set on `row`: its folder if that is still in its collection,
 * else the root; its old position unless a sibling holds it now, else last. An environment gets
 * its parent back if that still exists.
 */
async function placeRestored(
  tx: Store,
  subject: HistorySubject,
  at: Record<string, unknown>,
  collection: { id: string } | null,
  row: Row,
): Promise<void> {
  if (subject.placement !== 'top-level') {
    if (!collection)
      throw conflict(
        `The collection of this ${subject.noun} no longer exists; it cannot come back.`,
      );
    const { column, table: siblingsTable } = parentOf(subject.name);
    let parent = (at[column] as string | null) ?? null;
    if (parent !== null) {
      const folder = await tx.table(foldersTable).get(parent);
      if (!folder || folder.collectionId !== collection.id) parent = null;
    }
    const siblings = tx.table(siblingsTable);
    const where = { collectionId: collection.id, [column]: parent };
    const taken = await siblings.find({ where: { ...where, sortOrder: at.sortOrder }, limit: 1 });
    const sortOrder =
      taken.length === 0
        ? (at.sortOrder as number)
        : nextSortOrder(
            (await siblings.find({ where, orderBy: [['sortOrder', 'desc']], limit: 1 })) as {
              sortOrder: number;
            }[],
          );
    Object.assign(row, { collectionId: collection.id, [column]: parent, sortOrder });
  } else if (subject.name === 'environment' && at.parentUuid) {
    const parent = await tx.table(environmentsTable).get(String(at.parentUuid));
    row.parentUuid = parent ? parent.id : null;
  }
}

/**
 * The records the deletion `deletion` removed with its record (a folder's subtree, a collection's
 * contents) that are still in the trash, as they were, with their next versions.
 */
async function deletedWith(tx: Store, deletion: RevisionRow): Promise<Map<HistoryKind, Row[]>> {
  const found = new Map<HistoryKind, Row[]>();
  const holdsOthers = deletion.kind === FOLDER_KIND.name || kindNamed(deletion.kind)?.container;
  if (deletion.action !== 'deleted' || !holdsOthers) return found;
  const trashed = await tx.table(trashTable).find({ where: { cause: deletion.recordId } });
  if (trashed.length === 0) return found;
  // Each one's `deleted` revision holds the row.
  const revisions = await tx.table(revisionsTable).find({
    where: { recordId: { in: trashed.map((row) => row.id) }, action: 'deleted' },
  });
  const wanted = new Map(trashed.map((row) => [row.id, row.version]));
  for (const revision of revisions) {
    if (wanted.get(revision.recordId) !== revision.version || !CHILD_TABLES.has(revision.kind))
      continue;
    // A folder or item kind: what the trash has, the registry has.
    const kind = revision.kind as HistoryKind;
    const rows = found.get(kind) ?? [];
    rows.push({ ...(revision.snapshot as Row), version: revision.version + 1 });
    found.set(kind, rows);
  }
  return found;
}
