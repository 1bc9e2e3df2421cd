/**
 * The contract's TableApi on Kysely, for one table of a store bound to a tenant (or unscoped) and
 * to an executor: the pool, or an open transaction. Statements' errors are mapped and their retries
 * decided in retry.ts.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import {
  StorageError,
  type FindOptions,
  type Store,
  type TableApi,
  type Where,
} from '../contract.ts';
import type { Table } from '../table.ts';
import { codecFor, INSERT_CHUNK, insertedValues, type TableCodec } from './codec.ts';
import type { SqlDialect } from './dialect.ts';
import { afterExpression, whereExpression } from './query.ts';
import { retryStatement } from './retry.ts';
import { insertCopy, updateVersionedIn } from '../versioned.ts';
import { updateVersionedAtOnce } from './pg-writes.ts';

export type Executor = Kysely<any> | Transaction<any>;
export type Row = Record<string, unknown>;
const CHUNK = 500;

/** Told which tables a statement or transaction may have changed (see ../changes.ts). */
export type ChangedTables = (tables: Iterable<string>) => void;

/** Where a table's statements run, and what they report to. */
export interface TableScope {
  dialect: SqlDialect;
  db: Executor;
  tenantId: string | null;
  inTransaction: boolean;
  changed: ChangedTables;
  /** Runs `fn` in a new transaction (used outside one, for writes of several statements). */
  transaction: Store['transaction'];
}

/** Whether `where` fixes `column` to one value (equality or null, not a range or a list). */
function pinned(where: Where<any> | undefined, column: string): boolean {
  const condition = where?.[column];
  if (condition === undefined) return false;
  return condition === null || typeof condition !== 'object' || condition instanceof Date;
}

export function tableApi(scope: TableScope, table: Table): TableApi<Row> {
  const { dialect, db, tenantId, inTransaction, changed } = scope;
  const codec: TableCodec = codecFor(table);
  const name = table.name;
  const where = (w?: Where<any>) => (eb: any) => whereExpression(eb, codec, tenantId, w);
  // Plain reads may use a separate connection (SQLite: they run while this process writes).
  const reader: Executor = inTransaction ? db : (dialect.readDb ?? db);
  const sqlite = dialect.flavor === 'sqlite';
  const mysql = dialect.flavor === 'mysql';
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

  /**
   * Runs an insert that may hit a unique key. Inside a PostgreSQL transaction a failed statement
   * aborts the whole transaction, so the insert gets a savepoint to roll back to and the caller can
   * go on (update instead, say); MySQL and SQLite only fail the statement.
   */
  const tryInsert = async (row: Row): Promise<Row> => {
    if (!inTransaction || dialect.flavor !== 'postgres') return api.insert(row);
    await sql`SAVEPOINT hub_insert`.execute(db);
    try {
      const inserted = await api.insert(row);
      await sql`RELEASE SAVEPOINT hub_insert`.execute(db);
      return inserted;
    } catch (error) {
      await sql`ROLLBACK TO SAVEPOINT hub_insert`.execute(db);
      throw error;
    }
  };

  const api: TableApi<Row> = {
    get: (id) => api.findOne({ id }),
    getForUpdate(id) {
      if (!inTransaction) return api.get(id);
      return retryStatement(name, async () => {
        // SQLite's transactions hold the writer lock from the start: a plain read is already locked.
        const query = db.selectFrom(name).selectAll().where(where({ id }));
        const row = await (sqlite ? query : query.forUpdate()).executeTakeFirst();
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
        for (const [column, direction] of options.orderBy ?? []) {
          // MySQL/MariaDB: ordering by a column the filter pins to one value (`x IS NULL`, say)
          // makes MariaDB scan the whole range and sort it; without it, the index is read
          // backwards and stops at the limit. PostgreSQL needs it kept for the opposite reason.
          if (mysql && pinned(options.where, column)) continue;
          query = query.orderBy(codec.column(column), direction);
        }
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
      if (dialect.flavor === 'postgres') {
        // One round trip: the changed row comes back with the UPDATE. Not on SQLite: libsql runs
        // a statement that returns rows through a cursor that stays open until it is collected,
        // and one that met another process's lock would keep the writer connection busy (its
        // next COMMIT fails); there the row is read back with a second, local statement.
        const row = await writeColumns(values, () =>
          db.updateTable(name).set(values).where(where(match)).returningAll().executeTakeFirst(),
        );
        return row ? decode(row as Row) : null;
      }
      const matched = await api.updateWhere(match, patch);
      if (matched === 0) return null;
      return api.get(id);
    },
    async updateVersioned(id, patch, match, copy) {
      if (sqlite && inTransaction) {
        // The updated row comes back with the UPDATE, and the copy is made from it: two
        // statements, not a read, an update and an insert. RETURNING is safe here although
        // `update` avoids it on SQLite: a transaction holds the database's write lock from its
        // BEGIN IMMEDIATE, so this statement cannot meet another process's lock.
        const values = { ...setValues(patch), version: sql`version + 1` };
        const updated = await writeColumns(values, () =>
          db
            .updateTable(name)
            .set(values)
            .where(where({ ...match, id }))
            .returningAll()
            .executeTakeFirst(),
        );
        if (!updated) return null;
        const row = decode(updated as Row) as Row & { id: string; version: number };
        await insertCopy((t) => tableApi(scope, t), copy, row);
        return row;
      }
      if (dialect.flavor !== 'postgres')
        return scope.transaction((tx) => updateVersionedIn(tx, table, id, patch, match, copy));
      const values = { ...setValues(patch), version: sql`version + 1` };
      return updateVersionedAtOnce(
        { db: db as Kysely<any>, table, filter: where({ ...match, id }), write, decode },
        values,
        copy,
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
