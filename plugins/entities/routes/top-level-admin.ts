/**
 * The admin routes of a top-level kind: list every row, create (where the desktop uses it), edit
 * or toggle the deletion lock, and delete regardless of lock and creator. Their writes record
 * revisions like the data routes (top-level.ts).
 */
import type { Hono } from 'hono';
import type { AuditInput } from '../../../kernel/audit.ts';
import { newId } from '../../../kernel/identity/secrets.ts';
import type { KernelEnv } from '../../../kernel/plugin.ts';
import { pathId } from '../../../kernel/http/params.ts';
import { jsonBody } from '../../../kernel/http/validate.ts';
import type { Store } from '../../../kernel/storage/contract.ts';
import type { EntityDeps } from '../deps.ts';
import { publishDeleted } from '../events.ts';
import { answerRecord, etagOf } from '../history/record.ts';
import { toAdminSummary } from '../records.ts';
import { lockBody } from '../schemas.ts';
import { rowsOf, type AnyTopLevelRow, type TopLevelRow } from '../kinds/top-level.ts';
import type { TopLevelKind } from '../kinds/index.ts';
import { insertRow, removeRow, updateRow } from './top-level-rows.ts';

/** `lock.changed`: an admin turned a top-level row's deletion lock on or off. */
function lockChanged(kind: string, before: TopLevelRow, after: TopLevelRow): AuditInput {
  return {
    action: 'lock.changed',
    target: { kind, id: after.id, name: after.name },
    details: {
      before: { deletionLocked: before.deletionLocked },
      after: { deletionLocked: after.deletionLocked },
    },
  };
}

export function topLevelAdminRoutes(
  app: Hono<KernelEnv>,
  deps: EntityDeps,
  kind: TopLevelKind,
  load: (tx: Store, id: string) => Promise<AnyTopLevelRow>,
): void {
  const adminPath = `/admin/${kind.prefix}`;
  const adminRecord = (row: AnyTopLevelRow) =>
    kind.admin?.fullRecords ? kind.toRecord(row) : toAdminSummary(row);

  app.get(adminPath, async (c) => {
    const rows = (await rowsOf(c.get('store'), kind).find()).sort((a, b) => kind.compare(a, b));
    return c.json({ [kind.listKey]: rows.map(adminRecord) });
  });

  if (kind.admin?.create) {
    app.post(adminPath, jsonBody(kind.createBody), async (c) => {
      const input = c.req.valid('json');
      const user = c.get('auth').user;
      const store = c.get('store');
      const row = await store.transaction(async (tx) =>
        insertRow(
          tx,
          deps,
          kind,
          await kind.create(input, { tx, user, now: deps.clock.iso(), id: newId() }),
        ),
      );
      c.header('ETag', etagOf(row));
      return c.json(kind.toRecord(row), 201);
    });
  }

  app.put(`${adminPath}/:id`, jsonBody(kind.admin?.updateBody ?? lockBody), async (c) => {
    const id = pathId(c, 'id', kind.notFound);
    const user = c.get('auth').user;
    const input = c.req.valid('json') as { deletionLocked: boolean };
    const row = await c.get('store').transaction(async (tx) => {
      const current = await load(tx, id);
      const now = deps.clock.iso();
      const patch = kind.admin
        ? await kind.admin.patch(current, input, { tx, user, now })
        : { deletionLocked: input.deletionLocked };
      const updated = await updateRow(tx, deps, kind, current, patch, user.id);
      if (updated.deletionLocked !== current.deletionLocked)
        await deps.audit.record(tx, lockChanged(kind.name, current, updated));
      return updated;
    });
    return answerRecord(c, adminRecord(row), row);
  });

  // Admins delete regardless of the lock and of who created the row.
  app.delete(`${adminPath}/:id`, async (c) => {
    const id = pathId(c, 'id', kind.notFound);
    const store = c.get('store');
    const removed = await store.transaction(async (tx) =>
      removeRow(tx, deps, kind, await load(tx, id), c.get('auth').user.id),
    );
    await publishDeleted(deps, c.get('tenant').id, removed);
    return c.body(null, 204);
  });
}
