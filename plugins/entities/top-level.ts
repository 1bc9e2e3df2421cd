/**
 * One generic implementation of the five top-level kinds (collections, environments, snippets, live
 * servers, live pages): list filtered by the access list, create (wildcard only), update, delete
 * (with the deletion lock and cascades), and the admin list / lock toggle / forced delete. Each kind
 * only describes its table, body schemas (derived from its record schema in records.ts), how a row
 * is built and patched, and its record.
 */
import type { Hono } from 'hono';
import type { z } from 'zod';
import type { AuditInput } from '../../kernel/audit.ts';
import { forbidden, notFound } from '../../kernel/errors.ts';
import {
  canCreate,
  hasAccess,
  WILDCARD,
  type EntityAccessField,
} from '../../kernel/identity/access.ts';
import { newId } from '../../kernel/identity/secrets.ts';
import type { UserRow } from '../../kernel/identity/tables.ts';
import type { KernelEnv } from '../../kernel/plugin.ts';
import {
  cachedJsonBytes,
  sendCachedJson,
  toCachedJson,
  type CachedJson,
} from '../../kernel/http/cached-json.ts';
import type { Store } from '../../kernel/storage/contract.ts';
import type { Columns, RowOfTable, Table } from '../../kernel/storage/table.ts';
import { publishDeleted, touched, type DeletedKind, type EntityDeps } from './access.ts';
import { toAdminSummary } from './records.ts';
import { lockBody } from './schemas.ts';
import type { TopLevelColumns } from './tables.ts';
import { pathId } from '../../kernel/http/params.ts';
import { jsonBody } from '../../kernel/http/validate.ts';

/** Columns every top-level row has. */
export interface TopLevelRow {
  id: string;
  name: string;
  deletionLocked: boolean;
  createdAt: string;
  updatedAt: string;
  createdByUserId: string | null;
  updatedByUserId: string | null;
}

export interface WriteContext {
  tx: Store;
  user: UserRow;
  /** The write's timestamp. */
  now: string;
}

export type Removed = Partial<Record<DeletedKind, string[]>>;

export interface TopLevelKind<
  Row extends TopLevelRow,
  Create,
  Update,
  AdminUpdate = { deletionLocked: boolean },
> {
  /** Route path, e.g. `/live-servers`; the admin routes live under `/admin` + path. */
  path: string;
  /** List wrapper key, e.g. `liveServers`. */
  listKey: string;
  table: TopLevelTable;
  field: EntityAccessField;
  /** The noun in `Deletion is locked for this <noun>.` */
  noun: string;
  deletedKind: DeletedKind;
  /** 404 message, e.g. `Live server not found`. */
  notFound: string;
  /** Listing order. */
  compare(a: Row, b: Row): number;
  createBody: z.ZodType<Create>;
  updateBody: z.ZodType<Update>;
  /** Builds the new row (may read, e.g. sibling order); the caller inserts it. */
  create(input: Create, ctx: WriteContext & { id: string }): Promise<Row>;
  /** The columns an update changes (may read, never write). */
  update(row: Row, input: Update, ctx: WriteContext): Promise<Partial<Row>>;
  toRecord(row: Row): object;
  /** The record schema (records.ts): what `toRecord` answers, in /openapi.json. */
  record: z.ZodType;
  /** Only the creator may delete through the data API (collections). */
  creatorOnlyDelete?: boolean;
  /** Removes what depends on the row. Inside the delete's transaction: all reads before writes. */
  cascade?(tx: Store, row: Row): Promise<Removed>;
  admin?: {
    /** List full records rather than `{id, name, deletionLocked}` (snippets, for the desktop). */
    fullRecords?: boolean;
    /** Also mount `POST /admin/<kind>` (201), which the desktop uses for snippets. */
    create?: boolean;
    updateBody: z.ZodType<AdminUpdate>;
    patch(row: Row, input: AdminUpdate, ctx: WriteContext): Promise<Partial<Row>>;
  };
}

/** `lock.changed`: an admin turned a top-level row's deletion lock on or off. */
function lockChanged(kind: DeletedKind, before: TopLevelRow, after: TopLevelRow): AuditInput {
  return {
    action: 'lock.changed',
    // `liveServer` → `live-server`, as the workspace kinds are named in the audit log.
    target: {
      kind: kind.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`),
      id: after.id,
      name: after.name,
    },
    details: {
      before: { deletionLocked: before.deletionLocked },
      after: { deletionLocked: after.deletionLocked },
    },
  };
}

/** Identity helper that type-checks a kind's callbacks against its row and bodies. */
export function defineTopLevelKind<
  Row extends TopLevelRow,
  Create,
  Update,
  AdminUpdate = { deletionLocked: boolean },
>(
  kind: TopLevelKind<Row, Create, Update, AdminUpdate>,
): TopLevelKind<Row, Create, Update, AdminUpdate> {
  return kind;
}

/** A top-level table: the columns the shared routes use, typed, and the kind's own columns. */
type TopLevelTable = Table<TopLevelColumns & Columns>;
/** A kind as the shared routes hold it: they read only the typed top-level columns of its rows. */
type AnyTopLevelKind = TopLevelKind<any, any, any, any>;
const rowsOf = (store: Store, kind: AnyTopLevelKind) => store.table(kind.table);
type AnyTopLevelRow = RowOfTable<TopLevelTable>;

/** Rows the user may see: everything for admins and `[*]`, the listed ids otherwise. */
async function accessibleRows(
  store: Store,
  user: UserRow,
  kind: AnyTopLevelKind,
): Promise<AnyTopLevelRow[]> {
  const list = user[kind.field];
  const table = rowsOf(store, kind);
  let rows: AnyTopLevelRow[];
  if (seesAll(user, kind)) rows = await table.find();
  else if (list.length === 0) rows = [];
  else rows = await table.getMany(list);
  return rows.sort((a, b) => kind.compare(a, b));
}

const seesAll = (user: UserRow, kind: AnyTopLevelKind) =>
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
  kind: AnyTopLevelKind,
): Promise<CachedJson> {
  // JSON, not a join: ids are never split apart or run together, whatever they hold.
  const scope = seesAll(user, kind) ? WILDCARD : JSON.stringify(user[kind.field]);
  return deps.cache.read(
    store,
    `entities:${store.tenantId}:${kind.path}:${scope}`,
    [kind.table],
    async () =>
      toCachedJson({
        [kind.listKey]: (await accessibleRows(store, user, kind)).map((row) => kind.toRecord(row)),
      }),
    cachedJsonBytes,
  );
}

/** Deletes the row and its dependants in the caller's transaction; returns every removed id. */
async function removeRow(tx: Store, kind: AnyTopLevelKind, row: AnyTopLevelRow): Promise<Removed> {
  const removed = (await kind.cascade?.(tx, row)) ?? {};
  await rowsOf(tx, kind).delete(row.id);
  return { ...removed, [kind.deletedKind]: [row.id] };
}

/** Mounts the data routes and admin routes of one kind on `app`. */
export function mountTopLevelKind(
  app: Hono<KernelEnv>,
  deps: EntityDeps,
  kind: AnyTopLevelKind,
): void {
  // Rows loaded to be written are locked until the transaction ends (a plain read outside one), so
  // a delete and its cascade never race an update or a child being added.
  const load = async (tx: Store, id: string): Promise<AnyTopLevelRow> => {
    const row = await rowsOf(tx, kind).getForUpdate(id);
    if (!row) throw notFound(kind.notFound);
    return row;
  };

  app.get(kind.path, async (c) =>
    sendCachedJson(c, await listAnswer(deps, c.var.store, c.var.auth.user, kind)),
  );

  app.post(kind.path, jsonBody(kind.createBody), async (c) => {
    const user = c.var.auth.user;
    if (!canCreate(user, kind.field)) throw forbidden();
    const input = c.req.valid('json');
    const row = await c.var.store.transaction(async (tx) => {
      const built = await kind.create(input, { tx, user, now: deps.clock.iso(), id: newId() });
      return rowsOf(tx, kind).insert(built);
    });
    return c.json(kind.toRecord(row), 200);
  });

  app.put(`${kind.path}/:id`, jsonBody(kind.updateBody), async (c) => {
    const id = pathId(c, 'id', kind.notFound);
    const user = c.var.auth.user;
    // Access first: a user outside the list learns nothing about which ids exist.
    if (!hasAccess(user, kind.field, id)) throw forbidden();
    const input = c.req.valid('json');
    const row = await c.var.store.transaction(async (tx) => {
      const current = await load(tx, id);
      const now = deps.clock.iso();
      const patch = await kind.update(current, input, { tx, user, now });
      return rowsOf(tx, kind).update(id, {
        ...patch,
        ...touched(user, now),
      });
    });
    if (!row) throw notFound(kind.notFound);
    return c.json(kind.toRecord(row));
  });

  app.delete(`${kind.path}/:id`, async (c) => {
    const id = pathId(c, 'id', kind.notFound);
    const user = c.var.auth.user;
    if (!hasAccess(user, kind.field, id)) throw forbidden();
    const removed = await c.var.store.transaction(async (tx) => {
      const current = await load(tx, id);
      if (current.deletionLocked) throw forbidden(`Deletion is locked for this ${kind.noun}.`);
      if (kind.creatorOnlyDelete && current.createdByUserId !== user.id) throw forbidden();
      return removeRow(tx, kind, current);
    });
    await publishDeleted(deps, c.var.tenant.id, removed);
    return c.body(null, 204);
  });

  const adminPath = `/admin${kind.path}`;
  const adminRecord = (row: AnyTopLevelRow) =>
    kind.admin?.fullRecords ? kind.toRecord(row) : toAdminSummary(row);

  app.get(adminPath, async (c) => {
    const rows = (await rowsOf(c.var.store, kind).find()).sort((a, b) => kind.compare(a, b));
    return c.json({ [kind.listKey]: rows.map(adminRecord) });
  });

  if (kind.admin?.create) {
    app.post(adminPath, jsonBody(kind.createBody), async (c) => {
      const input = c.req.valid('json');
      const user = c.var.auth.user;
      const row = await c.var.store.transaction(async (tx) =>
        rowsOf(tx, kind).insert(
          await kind.create(input, { tx, user, now: deps.clock.iso(), id: newId() }),
        ),
      );
      return c.json(kind.toRecord(row), 201);
    });
  }

  app.put(`${adminPath}/:id`, jsonBody(kind.admin?.updateBody ?? lockBody), async (c) => {
    const id = pathId(c, 'id', kind.notFound);
    const user = c.var.auth.user;
    const input = c.req.valid('json') as { deletionLocked: boolean };
    const row = await c.var.store.transaction(async (tx) => {
      const current = await load(tx, id);
      const now = deps.clock.iso();
      const patch = kind.admin
        ? await kind.admin.patch(current, input, { tx, user, now })
        : { deletionLocked: input.deletionLocked };
      const updated = await rowsOf(tx, kind).update(id, patch);
      if (updated && updated.deletionLocked !== current.deletionLocked)
        await deps.audit.record(tx, lockChanged(kind.deletedKind, current, updated));
      return updated;
    });
    if (!row) throw notFound(kind.notFound);
    return c.json(adminRecord(row));
  });

  // Admins delete regardless of the lock and of who created the row.
  app.delete(`${adminPath}/:id`, async (c) => {
    const id = pathId(c, 'id', kind.notFound);
    const removed = await c.var.store.transaction(async (tx) =>
      removeRow(tx, kind, await load(tx, id)),
    );
    await publishDeleted(deps, c.var.tenant.id, removed);
    return c.body(null, 204);
  });
}
