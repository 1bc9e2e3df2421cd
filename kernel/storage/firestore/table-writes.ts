/**
 * The writes of the contract's TableApi on Firestore (the reads are in table-api.ts, what both share in table-parts.ts). Each runs
 * inside a transaction, its own when the caller has none, and stages its documents and unique
 * keys through staging.ts.
 */
import type { TableApi, Where } from '../contract.ts';
import { TENANT_FIELD } from './codec.ts';
import { matchesWhere } from './query.ts';
import { uniqueError, type TxState } from './session.ts';
import { findFull, type TableParts } from './table-parts.ts';
import { insertCopy, matchesAll } from '../versioned.ts';

type Row = Record<string, unknown>;

type WriteMethods = Omit<
  TableApi<Row>,
  'get' | 'getForUpdate' | 'getMany' | 'find' | 'findOne' | 'count'
>;

/** The row with `patch` set on it, leaving its id and tenant as they are. */
const patched = (before: Row, patch: Row): Row => {
  const next = { ...before };
  for (const [key, value] of Object.entries(patch))
    if (value !== undefined && key !== 'id' && key !== TENANT_FIELD) next[key] = value;
  return next;
};

/** The tenant a new row gets: the store's, or the row's own through the unscoped store. */
function tenantFor(p: TableParts, row: Row): string | null {
  if (!p.table.tenantScoped) return null;
  const tenant = p.tenantId ?? (row[TENANT_FIELD] as string | undefined);
  if (!tenant)
    throw new TypeError(`Inserting into ${p.table.name} through the unscoped store needs tenantId`);
  return tenant;
}

/**
 * The rows `where` matches, locked and read again transactionally: the query itself takes no
 * lock, so a row it found may have changed since, and is kept only if it still matches (as
 * PostgreSQL re-checks a row an UPDATE had to wait for).
 */
async function lockMatches(p: TableParts, tx: TxState, where: Where<any>): Promise<Row[]> {
  const refs = (await findFull(p, { where }))
    .map((row) => p.refOf(String(row.id)))
    .sort((x, y) => (x.path < y.path ? -1 : 1));
  for (const ref of refs) await p.ctx.locks.acquire(tx.owner, ref.path);
  const fresh = refs.length ? await p.reader.docs(refs, true) : [];
  return fresh.flatMap((data) =>
    data && matchesWhere(p.codec, p.full(data), p.tenantId, where) ? [p.full(data)] : [],
  );
}

/** Adds `deltas` to the row, or inserts `init` with them added when there is none. */
async function incrementIn(
  p: TableParts,
  tx: TxState,
  id: string,
  deltas: Record<string, number>,
  init: Row | undefined,
): Promise<Row | null> {
  const { own, out } = p;
  const { readForWrite, stageInsert, stageReplace } = p.writer;
  const entries = Object.entries(deltas).filter(([, delta]) => delta !== undefined);
  const before = await readForWrite(tx, id);
  const add = (row: Row) => {
    const next = { ...row };
    for (const [column, delta] of entries) next[column] = Number(next[column] ?? 0) + delta;
    return next;
  };
  if (before && own(before))
    return out(entries.length === 0 ? before : await stageReplace(tx, before, add(before)));
  if (!init) return null;
  if (before) throw uniqueError(p.table.name, ['id']);
  const seeded = add({ ...init, id });
  return out(await stageInsert(tx, seeded, tenantFor(p, seeded)));
}

export function tableWrites(p: TableParts): WriteMethods {
  const { scope, table, state, codec, own, out, alone } = p;
  const { readForWrite, stageInsert, stageInserts, stageReplace, stageDelete } = p.writer;
  return {
    async insert(row) {
      if (!state) return alone((tx) => tx.insert(row));
      await stageInsert(state, row, tenantFor(p, row));
      return row;
    },
    async insertMany(rows) {
      if (!state) return alone((tx) => tx.insertMany(rows));
      await stageInserts(
        state,
        rows.map((row) => ({ row, tenant: tenantFor(p, row) })),
      );
      return [...rows];
    },
    async put(row) {
      if (!state) return alone((tx) => tx.put(row));
      const tenant = tenantFor(p, row);
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
      if (where && !matchesWhere(codec, before, p.tenantId, where)) return null;
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
      const rows = await lockMatches(p, state, where);
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
      const rows = await lockMatches(p, state, where);
      for (const row of rows) await stageDelete(state, row);
      return rows.length;
    },
    async increment(id, deltas, init) {
      if (!state) return alone((tx) => tx.increment(id, deltas, init));
      return incrementIn(p, state, id, deltas as Record<string, number>, init);
    },
  };
}
