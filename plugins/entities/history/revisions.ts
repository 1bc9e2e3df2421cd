/**
 * The history routes of every kind that keeps revisions: list a record's revisions (newest first,
 * paged by version), read one with the record as it was (audited), restore one (restore.ts), and
 * the admin's purge of a record's history (purge.ts). Everything is access-checked like
 * the record itself (see subjects.ts), and each revision of a folder, saved request or
 * document also by the collection it was written in: one moved in from another collection shows
 * only what was written where the reader may go.
 */
import { z } from 'zod';
import type { Hono } from 'hono';
import { forbidden, notFound } from '../../../kernel/errors.ts';
import { limitQuery } from '../../../kernel/http/paging.ts';
import { pathId } from '../../../kernel/http/params.ts';
import { validate } from '../../../kernel/http/validate.ts';
import { usersById } from '../../../kernel/identity/users.ts';
import type { UserRow } from '../../../kernel/identity/tables.ts';
import type { KernelEnv } from '../../../kernel/plugin.ts';
import type { Store } from '../../../kernel/storage/contract.ts';
import type { EntityDeps } from '../deps.ts';
import type { VersionedRow } from './record.ts';
import { assertSubjectAccess, mayReadRevision, type HistorySubject } from './subjects.ts';
import { purgeHistory } from './purge.ts';
import { restoreRevision } from './restore.ts';
import { COLLECTION_ACCESS } from '../kinds/index.ts';
import { revisionsTable, type RevisionRow } from './tables.ts';

const REVISION_NOT_FOUND = 'Revision not found';
const CURSOR_MESSAGE = 'must be a cursor from a previous page';

export const revisionsQuery = z.object({
  cursor: z
    .string()
    .regex(/^[1-9]\d{0,8}$/, CURSOR_MESSAGE)
    .optional(),
  limit: limitQuery(50),
});

export const actorSchema = z
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
  return latest && latest.kind === subject.name ? latest : null;
}

/**
 * The record now (null once deleted) and its newest revision; 404 when neither exists. Access is
 * checked before anything about the record is told (403).
 */
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
      const user = c.get('auth').user;
      await loadSubject(store, subject, user, id);
      // Only revisions the reader may see count towards a page, so a page may take more reads.
      const visible: RevisionRow[] = [];
      let below = cursor ? Number(cursor) : undefined;
      for (;;) {
        const rows = await store.table(revisionsTable).find({
          where: { recordId: id, ...(below !== undefined ? { version: { lt: below } } : {}) },
          orderBy: [['version', 'desc']],
          limit: limit + 1,
        });
        visible.push(...rows.filter((row) => mayReadRevision(user, subject, row)));
        if (rows.length <= limit || visible.length > limit) break;
        below = rows[rows.length - 1]!.version;
      }
      const page = visible.slice(0, limit);
      const more = visible.length > limit;
      return c.json({
        revisions: await presentRevisions(store, page),
        ...(more ? { nextCursor: String(page[page.length - 1]!.version) } : {}),
      });
    });

    /** The revision, after the record's access check: 403 when written where the user may not go. */
    const loadRevision = async (store: Store, user: UserRow, id: string, revisionId: string) => {
      const row = await store.table(revisionsTable).get(revisionId);
      if (!row || row.recordId !== id || row.kind !== subject.name)
        throw notFound(REVISION_NOT_FOUND);
      if (!mayReadRevision(user, subject, row))
        throw forbidden(
          `This revision was written in a collection that is not in your ${COLLECTION_ACCESS} list.`,
        );
      return row;
    };

    app.get(`${base}/:revisionId`, async (c) => {
      const id = pathId(c, 'id', subject.notFound);
      const revisionId = pathId(c, 'revisionId', REVISION_NOT_FOUND);
      const store = c.get('store');
      const user = c.get('auth').user;
      await loadSubject(store, subject, user, id);
      const row = await loadRevision(store, user, id, revisionId);
      // Who read which old content (it may hold what has since been scrubbed): one insert.
      await deps.audit.record(store, {
        action: 'revision.read',
        target: { kind: subject.name, id, name: String(row.snapshot['name'] ?? '') },
        details: { revisionId: row.id, version: row.version },
      });
      const [revision] = await presentRevisions(store, [row]);
      return c.json({ revision, record: subject.toRecord(row.snapshot) });
    });

    app.post(`${base}/:revisionId/restore`, async (c) => {
      const id = pathId(c, 'id', subject.notFound);
      const revisionId = pathId(c, 'revisionId', REVISION_NOT_FOUND);
      const store = c.get('store');
      const user = c.get('auth').user;
      const { live } = await loadSubject(store, subject, user, id);
      const revision = await loadRevision(store, user, id, revisionId);
      const row = await restoreRevision(store, deps, subject, revision, user, live !== null);
      c.header('ETag', `"${row.version}"`);
      return c.json(subject.toRecord(row));
    });

    app.delete(`/admin/${subject.prefix}/:id/revisions`, async (c) => {
      const id = pathId(c, 'id', subject.notFound);
      const store = c.get('store');
      const purged = await purgeHistory(store, deps, subject, id);
      // The bytes are off the counters: the next check reads them again.
      deps.usage.forget(store.tenantId);
      return c.json(purged);
    });
  }
}
