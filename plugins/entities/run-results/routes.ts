/**
 * Run results: snapshots of collection or request runs the desktop uploads. A snapshot belongs to
 * the hub collection named in its payload (`collection.id`, or `collection.uuid` as the desktop's
 * export writes it); it is readable by its creator, admins, and users with access to that
 * collection — never by any token that guesses an id. Without a collection only the creator and
 * admins may read it.
 */
import { z } from 'zod';
import type { Hono } from 'hono';
import { badRequest, forbidden, notFound } from '../../../kernel/errors.ts';
import { hasAccess } from '../../../kernel/identity/access.ts';
import { newId } from '../../../kernel/identity/secrets.ts';
import { usersTable, type UserRow } from '../../../kernel/identity/tables.ts';
import { lockCaller } from '../../../kernel/identity/users.ts';
import type { Store } from '../../../kernel/storage/contract.ts';
import type { KernelEnv } from '../../../kernel/plugin.ts';
import type { EntityDeps } from '../deps.ts';
import { publishDeleted } from '../events.ts';
import { COLLECTION_ACCESS } from '../kinds/index.ts';
import { toRunResultDetail, toRunResultRecord } from '../records.ts';
import { canReadRunResult, RUN_RESULT_REFUSED } from './access.ts';
import { collectionsTable, runResultsTable, type RunResultRow } from '../tables.ts';
import { ID_MAX, idsQuery, pathId } from '../../../kernel/http/params.ts';
import { jsonBody, validate } from '../../../kernel/http/validate.ts';
import { safeName } from '../../../kernel/text.ts';
import {
  lockCreator,
  releaseRunResult,
  reserveRunResult,
  runResultSize,
  runResultUsage,
  runResultUsages,
  type RunResultsConfig,
} from './usage.ts';

const KINDS = ['collection-run-results', 'request-run-results'] as const;
const NOT_FOUND = 'Run result not found';
const USER_NOT_FOUND = 'User not found';
/** Published after a run result is stored, for notices. */
export const RUN_RESULT_CREATED = 'entities.runResult.created';

/** `GET /admin/run-results/usage`: the users asked about. */
const usagesQuery = z.strictObject({
  userIds: idsQuery().describe('The users, comma-separated (at most 100)'),
});

const createBody = z.object({
  label: safeName(
    z.string().trim().min(1, 'must not be empty').max(1000, 'must be at most 1000 characters'),
  ).optional(),
  payload: z.record(z.string(), z.unknown()),
});

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const stringOrNull = (value: unknown) => (typeof value === 'string' ? value : null);

/** Checks the export envelope and extracts what lists and access checks need. */
export function parseRunPayload(payload: Record<string, unknown>) {
  const kind = payload.harborclientExport;
  if (!KINDS.includes(kind as (typeof KINDS)[number])) {
    throw badRequest(
      `payload.harborclientExport: Invalid run result payload: harborclientExport is required (${KINDS.join(' or ')}).`,
    );
  }
  const results = payload.results;
  if (!Array.isArray(results) || results.length === 0)
    throw badRequest('payload.results: Invalid run result payload: results are required.');
  const summary = { passed: 0, failed: 0, skipped: 0 };
  for (const row of results) {
    const status = isRecord(row) ? row.status : undefined;
    if (status === 'passed' || status === 'failed' || status === 'skipped') summary[status] += 1;
  }
  const collection = isRecord(payload.collection) ? payload.collection : {};
  const request = isRecord(payload.request) ? payload.request : {};
  const rawId = stringOrNull(collection.id) ?? stringOrNull(collection.uuid);
  const collectionId = rawId && rawId.trim() && rawId.length <= ID_MAX ? rawId.trim() : null;
  return {
    kind: kind as string,
    collectionId,
    collectionName: stringOrNull(collection.name),
    requestName: stringOrNull(request.name),
    summary,
  };
}

const NEWEST_FIRST = [
  ['createdAt', 'desc'],
  ['id', 'desc'],
] as const;

/**
 * Deletes a run result and takes it off its creator's usage, in one transaction; `check` may refuse
 * (403). The creator's row is locked first, as a store does, so the two take turns.
 */
async function deleteRunResult(
  store: Store,
  id: string,
  check: (row: RunResultRow) => void = () => {},
): Promise<void> {
  await store.transaction(async (tx) => {
    const seen = await tx.table(runResultsTable).get(id);
    if (!seen) throw notFound(NOT_FOUND);
    check(seen);
    await lockCreator(tx, seen.createdByUserId);
    // Read again under the lock: a concurrent delete may have taken it off the usage already.
    const row = await tx.table(runResultsTable).get(id);
    if (!row) throw notFound(NOT_FOUND);
    await releaseRunResult(tx, row);
    await tx.table(runResultsTable).delete(id);
  });
}

/**
 * Stores an upload under its user's row lock (so concurrent ones cannot overshoot a limit), its
 * size reserved against the user's limits.
 */
async function insertRunResult(
  tx: Store,
  user: UserRow,
  { label, payload }: z.output<typeof createBody>,
  parsed: ReturnType<typeof parseRunPayload>,
  now: string,
  limits: () => RunResultsConfig,
): Promise<RunResultRow> {
  // Uploads of one user take turns on their row, so concurrent ones cannot overshoot a limit.
  await lockCaller(tx, user.id);
  // Attaching a run to a hub collection the caller cannot use would show it to that
  // collection's members; ids of collections this hub does not hold (local ones) are fine.
  if (parsed.collectionId && !hasAccess(user, COLLECTION_ACCESS, parsed.collectionId)) {
    if (await tx.table(collectionsTable).get(parsed.collectionId))
      throw forbidden(
        `payload.collection.id: you have no access to that collection (it is not in your ${COLLECTION_ACCESS} list).`,
      );
  }
  const target = parsed.requestName ?? parsed.collectionName ?? 'Run';
  const stored = label ?? `${target} — ${now.replace('T', ' ').slice(0, 19)}`;
  const sizeBytes = runResultSize(stored, payload);
  await reserveRunResult(tx, user.id, sizeBytes, limits());
  return tx.table(runResultsTable).insert({
    id: newId(),
    kind: parsed.kind,
    label: stored,
    collectionId: parsed.collectionId,
    collectionName: parsed.collectionName,
    requestName: parsed.requestName,
    summaryPassed: parsed.summary.passed,
    summaryFailed: parsed.summary.failed,
    summarySkipped: parsed.summary.skipped,
    payload,
    createdAt: now,
    createdByUserId: user.id,
    sizeBytes,
  });
}

export function runResultRoutes(
  app: Hono<KernelEnv>,
  deps: EntityDeps,
  limits: () => RunResultsConfig,
): void {
  app.get('/run-results', async (c) => {
    const store = c.get('store');
    const rows = await store
      .table(runResultsTable)
      .find({ where: { createdByUserId: c.get('auth').user.id }, orderBy: NEWEST_FIRST });
    return c.json({ runResults: rows.map(toRunResultRecord) });
  });

  app.post('/run-results', jsonBody(createBody), async (c) => {
    const user = c.get('auth').user;
    const { label, payload } = c.req.valid('json');
    const parsed = parseRunPayload(payload);
    const now = deps.clock.iso();
    const row = await c
      .get('store')
      .transaction((tx) => insertRunResult(tx, user, { label, payload }, parsed, now, limits));
    await deps.events.publish(RUN_RESULT_CREATED, {
      tenantId: c.get('tenant').id,
      runResultId: row.id,
      collectionId: row.collectionId,
      failed: row.summaryFailed,
      actorId: user.id,
    });
    return c.json(toRunResultDetail(row), 200);
  });

  app.get('/run-results/:id', async (c) => {
    const store = c.get('store');
    const row = await store.table(runResultsTable).get(pathId(c, 'id', NOT_FOUND));
    if (!row) throw notFound(NOT_FOUND);
    if (!canReadRunResult(c.get('auth').user, row)) throw forbidden(RUN_RESULT_REFUSED);
    return c.json(toRunResultDetail(row));
  });

  app.delete('/run-results/:id', async (c) => {
    const id = pathId(c, 'id', NOT_FOUND);
    await deleteRunResult(c.get('store'), id, (row) => {
      if (row.createdByUserId !== c.get('auth').user.id)
        throw forbidden("Only the run result's creator can delete it.");
    });
    await publishDeleted(deps, c.get('tenant').id, { runResult: [id] });
    return c.body(null, 204);
  });

  app.get('/admin/run-results', async (c) => {
    const rows = await c.get('store').table(runResultsTable).find({ orderBy: NEWEST_FIRST });
    return c.json({ runResults: rows.map(toRunResultRecord) });
  });

  // Before `/admin/run-results/:id`, which would take `usage` for an id.
  app.get('/admin/run-results/usage', validate('query', usagesQuery), async (c) => {
    const ids = c.req.valid('query').userIds;
    return c.json({ users: await runResultUsages(c.get('store'), ids, limits()) });
  });

  app.get('/admin/run-results/:id', async (c) => {
    const store = c.get('store');
    const row = await store.table(runResultsTable).get(pathId(c, 'id', NOT_FOUND));
    if (!row) throw notFound(NOT_FOUND);
    return c.json(toRunResultDetail(row));
  });

  app.delete('/admin/run-results/:id', async (c) => {
    const id = pathId(c, 'id', NOT_FOUND);
    await deleteRunResult(c.get('store'), id);
    await publishDeleted(deps, c.get('tenant').id, { runResult: [id] });
    return c.body(null, 204);
  });

  app.get('/admin/users/:id/run-results/usage', async (c) => {
    const id = pathId(c, 'id', USER_NOT_FOUND);
    if (!(await c.get('store').table(usersTable).get(id))) throw notFound(USER_NOT_FOUND);
    return c.json(await runResultUsage(c.get('store'), id, limits()));
  });
}
