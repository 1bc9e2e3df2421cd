/**
 * The writes of the contract's TableApi on Kysely (the reads are in table-api.ts). A write moves
 * its table's change stamp; what a database does its own way (one-statement updates, a unique key
 * hit inside a transaction) its dialect does.
 */
import { sql } from 'kysely';
import { StorageError, type TableApi, type Where } from '../contract.ts';
import { INSERT_CHUNK, insertedValues } from './codec.ts';
import type { Row, RowUpdate } from './dialect.ts';
import type { TableParts } from './table-parts.ts';
import { updateVersionedIn } from '../versioned.ts';

type WriteMethods = Omit<
  TableApi<Row>,
  'get' | 'getForUpdate' | 'getMany' | 'find' | 'findOne' | 'count'
>;

/** The columns a patch sets, encoded, never the id. */
function setValues(p: TableParts, patch: Row): Row {
  const values = p.codec.encodeRow(patch);
  delete values.id;
  return values;
}

/** An insert that may hit a unique key, after which a transaction goes on (dialect's `recoverable`). */
function tryInsert(p: TableParts, api: TableApi<Row>, row: Row): Promise<Row> {
  return p.inTransaction ? p.dialect.recoverable(p.db, () => api.insert(row)) : api.insert(row);
}

/** The UPDATE of one row, for the dialect to run its way. */
function rowUpdate(p: TableParts, values: Row, match: Where<any>): RowUpdate {
  return {
    db: p.db,
    table: p.table,
    values,
    filter: p.where(match),
    write: (run) => p.writeColumns(values, run),
    decode: p.decode,
    inTransaction: p.inTransaction,
    tables: p.scope.tableOf,
  };
}

/** Adds `deltas` to the row, or inserts `init` with them added when there is none. */
async function incrementIn(
  p: TableParts,
  api: TableApi<Row>,
  id: string,
  deltas: Record<string, number>,
  init: Row | undefined,
): Promise<Row | null> {
  const { db, codec, name, where, write } = p;
  const entries = Object.entries(deltas).filter(([, delta]) => delta !== undefined);
  const apply = () =>
    write(async () => {
      const set: Row = {};
      for (const [column, delta] of entries)
        set[codec.column(column)] = (eb: any) => eb(codec.column(column), '+', delta);
      const result = await db.updateTable(name).set(set).where(where({ id })).executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    });
  if (entries.length === 0 || (await apply())) return api.get(id);
  if (!init) return null;
  const seeded: Row = { ...init, id };
  for (const [column, delta] of entries) seeded[column] = Number(seeded[column] ?? 0) + delta;
  try {
    await tryInsert(p, api, seeded);
    return api.get(id);
  } catch (error) {
    // Someone else inserted the row first: add to theirs.
    if (error instanceof StorageError && error.code === 'unique' && (await apply()))
      return api.get(id);
    throw error;
  }
}

export function tableWrites(p: TableParts, api: TableApi<Row>): WriteMethods {
  const { scope, table, dialect, db, tenantId, inTransaction, codec, name, where, write } = p;
  const insertValues = (row: Row): Row => insertedValues(table, codec, tenantId, row);
  return {
    insert(row) {
      return write(async () => {
        await db.insertInto(name).values(insertValues(row)).execute();
        return row;
      });
    },
    async insertMany(rows) {
      if (rows.length === 0) return [];
      // Several statements only need a transaction of their own when there is more than one.
      if (rows.length > INSERT_CHUNK && !inTransaction)
        return scope.transaction((tx) => tx.table(table).insertMany(rows) as Promise<Row[]>);
      for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
        const chunk = rows.slice(i, i + INSERT_CHUNK);
        await write(async () => {
          await db.insertInto(name).values(chunk.map(insertValues)).execute();
        });
      }
      return [...rows];
    },
    async put(row) {
      const { id, tenantId: _ignored, ...rest } = row;
      // Update first so a put can never take over another tenant's row with the same id.
      if (await api.update(id as string, rest)) return row;
      try {
        return await tryInsert(p, api, row);
      } catch (error) {
        if (
          error instanceof StorageError &&
          error.code === 'unique' &&
          (await api.update(id as string, rest))
        )
          return row;
        throw error;
      }
    },
    async update(id, patch, condition) {
      const values = setValues(p, patch);
      const match = { ...condition, id };
      if (Object.keys(values).length === 0) return api.findOne(match);
      return dialect.updateRow(rowUpdate(p, values, match), async () => {
        const matched = await api.updateWhere(match, patch);
        return matched === 0 ? null : api.get(id);
      });
    },
    updateVersioned(id, patch, match, copy) {
      const values = { ...setValues(p, patch), version: sql`version + 1` };
      return dialect.updateVersioned(rowUpdate(p, values, { ...match, id }), copy, () =>
        scope.transaction((tx) => updateVersionedIn(tx, table, id, patch, match, copy)),
      );
    },
    async updateWhere(w, patch) {
      const values = setValues(p, patch);
      if (Object.keys(values).length === 0) return api.count(w);
      return p.writeColumns(values, async () => {
        const result = await db.updateTable(name).set(values).where(where(w)).executeTakeFirst();
        return Number(result.numUpdatedRows);
      });
    },
    async delete(id) {
      return (await api.deleteWhere({ id })) > 0;
    },
    deleteWhere(w) {
      return write(async () =>
        Number((await db.deleteFrom(name).where(where(w)).executeTakeFirst()).numDeletedRows),
      );
    },
    increment(id, deltas, init) {
      return incrementIn(p, api, id, deltas as Record<string, number>, init);
    },
  };
}
