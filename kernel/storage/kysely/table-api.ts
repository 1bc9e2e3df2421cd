/**
 * The contract's TableApi on Kysely, for one table of a store bound to a tenant (or unscoped) and
 * to an executor: the pool, or an open transaction. Statements' errors are mapped and their retries
 * decided in retry.ts; what a database does its own way, its dialect does (dialects/).
 */
import { sql } from 'kysely';
import {
  StorageError,
  type FindOptions,
  type Store,
  type TableApi,
  type Where,
} from '../contract.ts';
import type { Table } from '../table.ts';
import { codecFor, INSERT_CHUNK, insertedValues, type TableCodec } from './codec.ts';
import type { ChangedTables, Executor, Row, RowUpdate, SqlDialect } from './dialect.ts';
import { afterExpression, whereExpression } from './query.ts';
import { retryStatement } from './retry.ts';
import { updateVersionedIn } from '../versioned.ts';

const CHUNK = 500;

/** Where a table's statements run, and what they report to. */
export interface TableScope {
  dialect: SqlDialect;
  db: Executor;
  tenantId: string | null;
  inTransaction: boolean;
  changed: ChangedTables;
  /** Runs `fn` in a new transaction (used outside one, for writes of several statements). */
  transaction: Store['transaction'];
  /** The table APIs of the same store. */
  tableOf: (table: Table) => TableApi<Row>;
}

export function tableApi(scope: TableScope, table: Table): TableApi<Row> {
  const { dialect, db, tenantId, inTransaction, changed } = scope;
  const codec: TableCodec = codecFor(table);
  const name = table.name;
  const where = (w?: Where<any>) => (eb: any) => whereExpression(eb, codec, tenantId, w);
  // Plain reads may use a separate connection (SQLite: they run while this process writes).
  const reader: Executor = inTransaction ? db : (dialect.readDb ?? db);
  // Outside a transaction a statement is retried on its own when another process holds a lock it
  // needs (SQLite); inside one, the whole transaction is.
  const statement = <T>(run: () => Promise<T>) => retryStatement(name, run, !inTransaction);
  /** A statement that writes: its table's change stamp moves once it has run (or failed). */
  const write = table.changeFeed
    ? <T>(run: () => Promise<T>) => statement(run).finally(() => changed([name]))
    : statement;
  /** Setting only bookkeeping columns (`untracked`) moves no stamp. */
  const untracked = new Set(table.untracked.map((column) => codec.column(column)));
  const writeColumns = <T>(values: Row, run: () => Promise<T>) =>
    untracked.size > 0 && Object.keys(values).every((column) => untracked.has(column))
      ? statement(run)
      : write(run);
  const decode = (raw: Row) => codec.decodeRow(raw, tenantId === null);

  const insertValues = (row: Row): Row => insertedValues(table, codec, tenantId, row);
  const setValues = (patch: Row): Row => {
    const values = codec.encodeRow(patch);
    delete values.id;
    return values;
  };

  /** An insert that may hit a unique key, after which a transaction goes on (dialect's `recoverable`). */
  const tryInsert = (row: Row): Promise<Row> =>
    inTransaction ? dialect.recoverable(db, () => api.insert(row)) : api.insert(row);
  /** The UPDATE of one row, for the dialect to run its way. */
  const rowUpdate = (values: Row, match: Where<any>): RowUpdate => ({
    db,
    table,
    values,
    filter: where(match),
    write: (run) => writeColumns(values, run),
    decode,
    inTransaction,
    tables: scope.tableOf,
  });

  const api: TableApi<Row> = {
    get: (id) => api.findOne({ id }),
    getForUpdate(id) {
      if (!inTransaction) return api.get(id);
      return retryStatement(name, async () => {
        const query = db.selectFrom(name).selectAll().where(where({ id }));
        const row = await dialect.forUpdate(query).executeTakeFirst();
        return row ? decode(row as Row) : null;
      });
    },
    async getMany(ids) {
      const out: Row[] = [];
      for (let i = 0; i < ids.length; i += CHUNK)
        out.push(...(await api.find({ where: { id: { in: ids.slice(i, i + CHUNK) } } })));
      return out;
    },
    find(options: FindOptions<any> = {}) {
      return statement(async () => {
        let query = reader.selectFrom(name).selectAll().where(where(options.where));
        const after = options.after;
        if (after) query = query.where((eb: any) => afterExpression(eb, codec, options)!);
        for (const [column, direction] of options.orderBy ?? [])
          if (dialect.ordersBy(options.where, column))
            query = query.orderBy(codec.column(column), direction);
        if (options.limit !== undefined) query = query.limit(options.limit);
        return (await query.execute()).map(decode);
      });
    },
    async findOne(w) {
      const [row] = await api.find({ where: w, limit: 1 });
      return row ?? null;
    },
    count(w) {
      return statement(async () => {
        const row = await reader
          .selectFrom(name)
          .select((eb: any) => eb.fn.countAll().as('n'))
          .where(where(w))
          .executeTakeFirst();
        return Number((row as Row | undefined)?.n ?? 0);
      });
    },
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
        return await tryInsert(row);
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
      const values = setValues(patch);
      const match = { ...condition, id };
      if (Object.keys(values).length === 0) return api.findOne(match);
      return dialect.updateRow(rowUpdate(values, match), async () => {
        const matched = await api.updateWhere(match, patch);
        return matched === 0 ? null : api.get(id);
      });
    },
    updateVersioned(id, patch, match, copy) {
      const values = { ...setValues(patch), version: sql`version + 1` };
      return dialect.updateVersioned(rowUpdate(values, { ...match, id }), copy, () =>
        scope.transaction((tx) => updateVersionedIn(tx, table, id, patch, match, copy)),
      );
    },
    async updateWhere(w, patch) {
      const values = setValues(patch);
      if (Object.keys(values).length === 0) return api.count(w);
      return writeColumns(values, async () => {
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
    async increment(id, deltas, init) {
      const entries = Object.entries(deltas as Record<string, number>).filter(
        ([, delta]) => delta !== undefined,
      );
      const apply = () =>
        write(async () => {
          const set: Row = {};
          for (const [column, delta] of entries)
            set[codec.column(column)] = (eb: any) => eb(codec.column(column), '+', delta);
          const result = await db
            .updateTable(name)
            .set(set)
            .where(where({ id }))
            .executeTakeFirst();
          return Number(result.numUpdatedRows) > 0;
        });
      if (entries.length === 0 || (await apply())) return api.get(id);
      if (!init) return null;
      const seeded: Row = { ...init, id };
      for (const [column, delta] of entries) seeded[column] = Number(seeded[column] ?? 0) + delta;
      try {
        await tryInsert(seeded);
        return api.get(id);
      } catch (error) {
        // Someone else inserted the row first: add to theirs.
        if (error instanceof StorageError && error.code === 'unique' && (await apply()))
          return api.get(id);
        throw error;
      }
    },
  };
  return api;
}
