/**
 * The history routes of every kind that keeps revisions: list a record's revisions (newest first,
 * paged by version), read one with the record as it was, restore one (restore.ts), and a
 * collection's trash — the folders, saved requests and documents deleted from it that can still
 * be restored. Everything is access-checked like the record itself (see history-subjects.ts).
 */
import { z } from 'zod';
import type { Hono } from 'hono';
import { notFound } from '../../kernel/errors.ts';
import { limitQuery } from '../../kernel/http/paging.ts';
import { pathId } from '../../kernel/http/params.ts';
import { validate } from '../../kernel/http/validate.ts';
import { usersById } from '../../kernel/identity/users.ts';
import type { KernelEnv } from '../../kernel/plugin.ts';
import type { Store } from '../../kernel/storage/contract.ts';
import { assertCollectionAccess, existingCollection, type EntityDeps } from './access.ts';
import type { VersionedRow } from './history.ts';
import { assertSubjectAccess, type HistorySubject } from './history-subjects.ts';
import { restoreRevision } from './restore.ts';
import { revisionsTable, trashTable, type RevisionRow } from './tables.ts';

const REVISION_NOT_FOUND = 'Revision not found';
const TRASH_KINDS = new Set(['request', 'document', 'folder']);
const CURSOR_MESSAGE = 'must be a cursor from a previous page';

export const revisionsQuery = z.object({
  cursor: z
    .string()
    .regex(/^[1-9]\d{0,8}$/, CURSOR_MESSAGE)
    .optional(),
  limit: limitQuery(50),
});

const actorSchema = z
  .object({ id: z.string(), name: z.string().nullable().describe('Null once the account is gone') })
  .nullable()
  .describe('Null for a change not made by a user (the command line)');

export const revisionRecord = z
  .object({
    id: z.string(),
    version: z.number().int().describe('1 = created, one more per change'),
    action: z.enum(['created', 'updated', 'moved', 'deleted', 'restored']),
    at: z.string(),
    actor: actorSchema,
  })
  .meta({ id: 'Revision' });

export const trashItem = z
  .object({
    kind: z.enum(['request', 'document', 'folder']),
    id: z.string(),
    name: z.string(),
    deletedAt: z.string(),
    deletedBy: actorSchema,
  })
  .meta({ id: 'TrashItem' });

/** Revisions as the API shows them, with their actors' current names. */
async function presentRevisions(store: Store, rows: readonly RevisionRow[]) {
  const users = await usersById(
    store,
    rows.map((row) => row.actorId),
  );
  const actor = (id: string | null) => (id ? { id, name: users.get(id)?.name ?? null } : null);
  return rows.map((row) => ({
    id: row.id,
    version: row.version,
    action: row.action,
    at: row.at,
    actor: actor(row.actorId),
  }));
}

/**
 * The record now (null once deleted) and its newest revision; 404 when neither exists. Access is
 * checked before anything about the record is told (403).
 */
/** The newest revision of a record of this kind, or null. */
export async function latestRevision(
  store: Store,
  subject: HistorySubject,
  id: string,
): Promise<RevisionRow | null> {
  const [latest] = await store.table(revisionsTable).find({
    where: { recordId: id },
    orderBy: [['version', 'desc']],
    limit: 1,
  });
  return latest && latest.kind === subject.kind ? latest : null;
}

export async function loadSubject(
  store: Store,
  subject: HistorySubject,
  user: Parameters<typeof assertSubjectAccess>[0],
  id: string,
): Promise<{ live: VersionedRow | null; latest: RevisionRow | null }> {
  if (subject.field) assertSubjectAccess(user, subject, id, null);
  const live = (await store.table(subject.table).get(id)) as VersionedRow | null;
  const latest = await latestRevision(store, subject, id);
  if (!live && !latest) throw notFound(subject.notFound);
  assertSubjectAccess(user, subject, id, live ?? (latest!.snapshot as Partial<VersionedRow>));
  return { live, latest };
}

export function revisionRoutes(
  app: Hono<KernelEnv>,
  deps: EntityDeps,
  subjects: readonly HistorySubject[],
): void {
  for (const subject of subjects) {
    const base = `/${subject.prefix}/:id/revisions`;

    app.get(base, validate('query', revisionsQuery), async (c) => {
      const id = pathId(c, 'id', subject.notFound);
      const { cursor, limit } = c.req.valid('query');
      const store = c.get('store');
      await loadSubject(store, subject, c.get('auth').user, id);
      const rows = await store.table(revisionsTable).find({
        where: { recordId: id, ...(cursor ? { version: { lt: Number(cursor) } } : {}) },
        orderBy: [['version', 'desc']],
        limit: limit + 1,
      });
      const page = rows.slice(0, limit);
      const more = rows.length > limit;
      return c.json({
        revisions: await presentRevisions(store, page),
        ...(more ? { nextCursor: String(page[page.length - 1]!.version) } : {}),
      });
    });

    const loadRevision = async (store: Store, id: string, revisionId: string) => {
      const row = await store.table(revisionsTable).get(revisionId);
      if (!row || row.recordId !== id || row.kind !== subject.kind)
        throw notFound(REVISION_NOT_FOUND);
      return row;
    };

    app.get(`${base}/:revisionId`, async (c) => {
      const id = pathId(c, 'id', subject.notFound);
      const revisionId = pathId(c, 'revisionId', REVISION_NOT_FOUND);
      const store = c.get('store');
      await loadSubject(store, subject, c.get('auth').user, id);
      const row = await loadRevision(store, id, revisionId);
      const [revision] = await presentRevisions(store, [row]);
      return c.json({ revision, record: subject.toRecord(row.snapshot) });
    });

    app.post(`${base}/:revisionId/restore`, async (c) => {
      const id = pathId(c, 'id', subject.notFound);
      const revisionId = pathId(c, 'revisionId', REVISION_NOT_FOUND);
      const store = c.get('store');
      const user = c.get('auth').user;
      await loadSubject(store, subject, user, id);
      const revision = await loadRevision(store, id, revisionId);
      const row = await restoreRevision(store, deps, subject, revision, user);
      c.header('ETag', `"${row.version}"`);
      return c.json(subject.toRecord(row));
    });
  }

  app.get('/collections/:id/trash', async (c) => {
    const collectionId = pathId(c, 'id', 'Collection not found');
    const store = c.get('store');
    assertCollectionAccess(c.get('auth').user, collectionId);
    await existingCollection(store, collectionId);
    // Records deleted on their own (not with a folder: they come back with it), newest first.
    const rows = (
      await store.table(trashTable).find({
        where: { collectionId, cause: null },
        orderBy: [['at', 'desc']],
      })
    ).filter((row) => TRASH_KINDS.has(row.kind));
    const users = await usersById(
      store,
      rows.map((row) => row.actorId),
    );
    return c.json({
      items: rows.map((row) => ({
        kind: row.kind,
        id: row.id,
        name: row.name,
        deletedAt: row.at,
        deletedBy: row.actorId
          ? { id: row.actorId, name: users.get(row.actorId)?.name ?? null }
          : null,
      })),
    });
  });
}
