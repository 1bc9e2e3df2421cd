/**
 * The contract's TableApi on Firestore. Reads run directly, or transactionally inside a
 * transaction; every write runs inside one (its own when the caller has none), because keeping
 * unique keys and tenant checks right needs the current row, read and written atomically. The
 * writes themselves are staged by staging.ts.
 */
import type { DocumentData } from '@google-cloud/firestore';
import type { FindOptions, Store, TableApi, Where } from '../contract.ts';
import type { Table } from '../table.ts';
import { codecFor, docId, hasNul, TENANT_FIELD } from './codec.ts';
import type { FirestoreContext } from './gate.ts';
import { buildQueries, compareRows, isAfterCursor, matchesWhere } from './query.ts';
import { createReader, uniqueError, type TxState } from './session.ts';
import { GET_CHUNK, tableWriter } from './staging.ts';
import { insertCopy, matchesAll } from '../versioned.ts';

type Row = Record<string, unknown>;

export interface TableScope {
  readonly ctx: FirestoreContext;
  readonly tenantId: string | null;
  /** The open transaction attempt, or null outside a transaction. */
  readonly state: TxState | null;
  /** The store this table belongs to, used to open a transaction for a lone write. */
  readonly store: Store;
}

export function firestoreTableApi(scope: TableScope, table: Table): TableApi<Row> {
  const { ctx, tenantId, state } = scope;
  const codec = codecFor(table);
  const collection = ctx.db.collection(codec.collection);
  const refOf = (id: string) => collection.doc(docId(id));
  const reader = createReader(ctx.db, state);
  const full = (data: DocumentData) => codec.decodeDoc(data, true);
  const own = (row: Row) =>
    !table.tenantScoped || tenantId === null || row[TENANT_FIELD] === tenantId;
  const out = (row: Row): Row => {
    if (tenantId === null || !table.tenantScoped) return row;
    const { [TENANT_FIELD]: _tenant, ...rest } = row;
    return rest;
  };
  // A lone write becomes a transaction of one write, run through the same code.
  const alone = <R>(run: (api: TableApi<Row>) => Promise<R>) =>
    scope.store.transaction((tx) => run(tx.table(table) as TableApi<Row>));
  const { readForWrite, stageInsert, stageInserts, stageReplace, stageDelete } = tableWriter(
    ctx,
    table,
    reader,
  );

  /** The tenant a new row gets: the store's, or the row's own through the unscoped store. */
  const tenantFor = (row: Row): string | null => {
    if (!table.tenantScoped) return null;
    const tenant = tenantId ?? (row[TENANT_FIELD] as string | undefined);
    if (!tenant)
      throw new TypeError(`Inserting into ${table.name} through the unscoped store needs tenantId`);
    return tenant;
  };

  /**
   * The rows `where` matches, locked and read again transactionally: the query itself takes no
   * lock, so a row it found may have changed since, and is kept only if it still matches (as
   * PostgreSQL re-checks a row an UPDATE had to wait for).
   */
  const lockMatches = async (tx: TxState, where: Where<any>): Promise<Row[]> => {
    const refs = (await findFull({ where }))
      .map((row) => refOf(String(row.id)))
      .sort((x, y) => (x.path < y.path ? -1 : 1));
    for (const ref of refs) await ctx.locks.acquire(tx.owner, ref.path);
    const fresh = refs.length ? await reader.docs(refs, true) : [];
    return fresh.flatMap((data) =>
      data && matchesWhere(codec, full(data), tenantId, where) ? [full(data)] : [],
    );
  };

  const patched = (before: Row, patch: Row): Row => {
    const next = { ...before };
    for (const [key, value] of Object.entries(patch))
      if (value !== undefined && key !== 'id' && key !== TENANT_FIELD) next[key] = value;
    return next;
  };

  /** Matching rows with their tenant, staged writes included. */
  const findFull = async (options: FindOptions<any>): Promise<Row[]> => {
    const queries = buildQueries(collection, codec, tenantId, options);
    if (queries.length === 0) return [];
    const staged = state
      ? [...state.staged.values()].filter((entry) => entry.collection === codec.collection)
      : [];
    const limit = options.limit;
    // Staged writes may hide rows the query returns, so ask for that many more.
    const asked =
      staged.length > 0 && limit !== undefined
        ? queries.map((q) => q.limit(limit + staged.length))
        : queries;
    const byPath = new Map<string, Row>();
    for (const docs of await Promise.all(asked.map((q) => reader.query(q)))) {
      for (const doc of docs) byPath.set(doc.path, full(doc.data));
    }
    for (const entry of staged) {
      byPath.delete(entry.ref.path);
      if (
        entry.row &&
        matchesWhere(codec, entry.row, tenantId, options.where) &&
        isAfterCursor(codec, entry.row, options)
      )
        byPath.set(entry.ref.path, entry.row);
    }
    let rows = [...byPath.values()];
    if (queries.length > 1 || staged.length > 0) {
      rows.sort(compareRows(codec, options.orderBy));
      if (limit !== undefined) rows = rows.slice(0, limit);
    }
    return rows;
  };

  const api: TableApi<Row> = {
    async get(id) {
      if (hasNul(id)) return null;
      const [data] = await reader.docs([refOf(id)]);
      if (!data) return null;
      const row = full(data);
      return own(row) ? out(row) : null;
    },
    async getForUpdate(id) {
      if (!state || hasNul(id)) return api.get(id);
      const row = await readForWrite(state, id);
      return row && own(row) ? out(row) : null;
    },
    async getMany(ids) {
      const wanted = [...new Set(ids)].filter((id) => !hasNul(id));
      const rows: Row[] = [];
      for (let i = 0; i < wanted.length; i += GET_CHUNK) {
        for (const data of await reader.docs(wanted.slice(i, i + GET_CHUNK).map(refOf))) {
          if (data && own(full(data))) rows.push(out(full(data)));
        }
      }
      return rows;
    },
    async find(options: FindOptions<any> = {}) {
      return (await findFull(options)).map(out);
    },
    async findOne(where) {
      const [row] = await api.find({ where, limit: 1 });
      return row ?? null;
    },
    async count(where?: Where<any>) {
      if (
        state &&
        [...state.staged.values()].some((entry) => entry.collection === codec.collection)
      )
        return (await findFull(where ? { where } : {})).length;
      const counts = await Promise.all(
        buildQueries(collection, codec, tenantId, where ? { where } : {}).map((q) =>
          reader.count(q),
        ),
      );
      return counts.reduce((sum, n) => sum + n, 0);
    },
    async insert(row) {
      if (!state) return alone((tx) => tx.insert(row));
      await stageInsert(state, row, tenantFor(row));
      return row;
    },
    async insertMany(rows) {
      if (!state) return alone((tx) => tx.insertMany(rows));
      await stageInserts(
        state,
        rows.map((row) => ({ row, tenant: tenantFor(row) })),
      );
      return [...rows];
    },
    async put(row) {
      if (!state) return alone((tx) => tx.put(row));
      const tenant = tenantFor(row);
      const before = await readForWrite(state, String(row.id));
      if (!before) await stageInsert(state, row, tenant);
      // Like SQL's update-then-insert: another tenant's row with this id is a duplicate, never taken over.
      else if (table.tenantScoped && before[TENANT_FIELD] !== tenant)
        throw uniqueError(table.name, ['id']);
      else await stageReplace(state, before, patched(before, row));
      return row;
    },
    async update(id, patch, where) {
      if (!state) return alone((tx) => tx.update(id, patch, where));
      const before = await readForWrite(state, id);
      if (!before || !own(before)) return null;
      if (where && !matchesWhere(codec, before, tenantId, where)) return null;
      const next = patched(before, patch as Row);
      return out(
        Object.keys(patch).length === 0 ? before : await stageReplace(state, before, next),
      );
    },
    async updateVersioned(id, patch, match, copy) {
      if (!state) return alone((tx) => tx.updateVersioned(id, patch, match, copy));
      // The row is read and locked by its id once, not found again by a query as updateWhere
      // would (two more reads of the emulator or the service per edit).
      const before = await readForWrite(state, id);
      if (!before || !own(before) || !matchesAll(out(before), match)) return null;
      const next = { ...patched(before, patch as Row), version: Number(before.version) + 1 };
      const row = out(await stageReplace(state, before, next));
      await insertCopy(
        (t) => scope.store.table(t) as TableApi<Row>,
        copy,
        row as Row & { id: string; version: number },
      );
      return row;
    },
    async updateWhere(where, patch) {
      if (!state) return alone((tx) => tx.updateWhere(where, patch));
      const rows = await lockMatches(state, where);
      if (Object.values(patch).every((value) => value === undefined)) return rows.length;
      for (const row of rows) await stageReplace(state, row, patched(row, patch as Row));
      return rows.length;
    },
    async delete(id) {
      if (!state) return alone((tx) => tx.delete(id));
      const before = await readForWrite(state, id);
      if (!before || !own(before)) return false;
      await stageDelete(state, before);
      return true;
    },
    async deleteWhere(where) {
      if (!state) return alone((tx) => tx.deleteWhere(where));
      const rows = await lockMatches(state, where);
      for (const row of rows) await stageDelete(state, row);
      return rows.length;
    },
    async increment(id, deltas, init) {
      if (!state) return alone((tx) => tx.increment(id, deltas, init));
      const entries = Object.entries(deltas as Record<string, number>).filter(
        ([, delta]) => delta !== undefined,
      );
      const before = await readForWrite(state, id);
      const add = (row: Row) => {
        const next = { ...row };
        for (const [column, delta] of entries) next[column] = Number(next[column] ?? 0) + delta;
        return next;
      };
      if (before && own(before))
        return out(entries.length === 0 ? before : await stageReplace(state, before, add(before)));
      if (!init) return null;
      if (before) throw uniqueError(table.name, ['id']);
      const seeded = add({ ...(init as Row), id });
      return out(await stageInsert(state, seeded, tenantFor(seeded)));
    },
  };
  return api;
}
