/**
 * One generic implementation of the five top-level kinds (collections, environments, snippets, live
 * servers, live pages): list filtered by the access list, create (wildcard only), update, delete
 * (with the deletion lock and cascades), and the admin list / lock toggle / forced delete. Each kind
 * only describes its table, body schemas (derived from its record schema in records.ts), how a row
 * is built and patched, and its record.
 */
import type { Hono } from 'hono';
import { forbidden, notFound } from '../../../kernel/errors.ts';
import {
  cannotCreate,
  canCreate,
  hasAccess,
  noAccess,
  WILDCARD,
} from '../../../kernel/identity/access.ts';
import { newId } from '../../../kernel/identity/secrets.ts';
import type { UserRow } from '../../../kernel/identity/tables.ts';
import type { KernelEnv } from '../../../kernel/plugin.ts';
import {
  cachedJsonBytes,
  sendCachedJson,
  toCachedJson,
  type CachedJson,
} from '../../../kernel/http/cached-json.ts';
import type { Store } from '../../../kernel/storage/contract.ts';
import { touched } from '../attribution.ts';
import type { EntityDeps } from '../deps.ts';
import { publishDeleted } from '../events.ts';
import { answerRecord, checkVersion, expectedVersion } from '../history/record.ts';
import { topLevelAdminRoutes } from './top-level-admin.ts';
import { rowsOf, type AnyTopLevelRow } from '../kinds/top-level.ts';
import type { TopLevelKind } from '../kinds/index.ts';
import { insertRow, removeRow, updateRow } from './top-level-rows.ts';
import { pathId } from '../../../kernel/http/params.ts';
import { jsonBody } from '../../../kernel/http/validate.ts';

/** Rows the user may see: everything for admins and `[*]`, the listed ids otherwise. */
async function accessibleRows(
  store: Store,
  user: UserRow,
  kind: TopLevelKind,
): Promise<AnyTopLevelRow[]> {
  const list = user[kind.field];
  const table = rowsOf(store, kind);
  let rows: AnyTopLevelRow[];
  if (seesAll(user, kind)) rows = await table.find();
  else if (list.length === 0) rows = [];
  else rows = await table.getMany(list);
  return rows.sort((a, b) => kind.compare(a, b));
}

const seesAll = (user: UserRow, kind: TopLevelKind) =>
  user.role === 'admin' || user[kind.field].includes(WILDCARD);

/**
 * The user's list answer, serialized once per distinct access list and kept until a row of the
 * kind's table changes (the access list itself is part of the key, and a changed user row is a
 * new authentication).
 */
function listAnswer(
  deps: EntityDeps,
  store: Store,
  user: UserRow,
  kind: TopLevelKind,
): Promise<CachedJson> {
  // JSON, not a join: ids are never split apart or run together, whatever they hold.
  const scope = seesAll(user, kind) ? WILDCARD : JSON.stringify(user[kind.field]);
  return deps.cache.read(
    store,
    `entities:${store.tenantId}:/${kind.prefix}:${scope}`,
    [kind.table],
    async () =>
      toCachedJson({
        [kind.listKey]: (await accessibleRows(store, user, kind)).map((row) => kind.toRecord(row)),
      }),
    cachedJsonBytes,
  );
}

/** Mounts the data routes and admin routes of one kind on `app`. */
export function mountTopLevelKind(
  app: Hono<KernelEnv>,
  deps: EntityDeps,
  kind: TopLevelKind,
): void {
  // Rows loaded to be written are locked until the transaction ends (a plain read outside one), so
  // a delete and its cascade never race an update or a child being added.
  const load = async (tx: Store, id: string): Promise<AnyTopLevelRow> => {
    const row = await rowsOf(tx, kind).getForUpdate(id);
    if (!row) throw notFound(kind.notFound);
    return row;
  };

  const path = `/${kind.prefix}`;

  app.get(path, async (c) =>
    sendCachedJson(c, await listAnswer(deps, c.get('store'), c.get('auth').user, kind)),
  );

  app.post(path, jsonBody(kind.createBody), async (c) => {
    const user = c.get('auth').user;
    if (!canCreate(user, kind.field)) throw cannotCreate(kind.field);
    const input = c.req.valid('json');
    const row = await c.get('store').transaction(async (tx) => {
      const built = await kind.create(input, { tx, user, now: deps.clock.iso(), id: newId() });
      return insertRow(tx, deps, kind, built);
    });
    return answerRecord(c, kind.toRecord(row), row);
  });

  app.put(`${path}/:id`, jsonBody(kind.updateBody), async (c) => {
    const id = pathId(c, 'id', kind.notFound);
    const user = c.get('auth').user;
    // Access first: a user outside the list learns nothing about which ids exist.
    if (!hasAccess(user, kind.field, id)) throw noAccess(kind.field);
    const input = c.req.valid('json');
    const expected = expectedVersion(c.req.header('if-match'));
    const row = await c.get('store').transaction(async (tx) => {
      const current = await load(tx, id);
      checkVersion(expected, current, () => kind.toRecord(current));
      const now = deps.clock.iso();
      const patch = await kind.update(current, input, { tx, user, now });
      return updateRow(tx, deps, kind, current, { ...patch, ...touched(user, now) }, user.id);
    });
    return answerRecord(c, kind.toRecord(row), row);
  });

  app.delete(`${path}/:id`, async (c) => {
    const id = pathId(c, 'id', kind.notFound);
    const user = c.get('auth').user;
    if (!hasAccess(user, kind.field, id)) throw noAccess(kind.field);
    const expected = expectedVersion(c.req.header('if-match'));
    const removed = await c.get('store').transaction(async (tx) => {
      const current = await load(tx, id);
      checkVersion(expected, current, () => kind.toRecord(current));
      if (current.deletionLocked) throw forbidden(`Deletion is locked for this ${kind.noun}.`);
      if (kind.creatorOnlyDelete && current.createdByUserId !== user.id)
        throw forbidden(`Only the ${kind.noun}'s creator can delete it.`);
      return removeRow(tx, deps, kind, current, user.id);
    });
    await publishDeleted(deps, c.get('tenant').id, removed);
    return c.body(null, 204);
  });

  topLevelAdminRoutes(app, deps, kind, load);
}
