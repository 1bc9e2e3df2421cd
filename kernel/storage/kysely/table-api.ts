/**
 * The contract's TableApi on Kysely, for one table of a store bound to a tenant (or unscoped) and
 * to an executor: the pool, or an open transaction. The reads are here, the writes in
 * table-writes.ts. Statements' errors are mapped and their retries decided in retry.ts; what a
 * database does its own way, its dialect does (dialects/).
 */
import type { FindOptions, Store, TableApi, Where } from '../contract.ts';
import type { Table } from '../table.ts';
import { codecFor, type TableCodec } from './codec.ts';
import type { ChangedTables, Executor, Row, SqlDialect } from './dialect.ts';
import { afterExpression, whereExpression } from './query.ts';
import { retryStatement } from './retry.ts';
import { tableWrites } from './table-writes.ts';

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

/** What the reads and the writes of one table share: its codec, executors and statement runners. */
export type TableParts = ReturnType<typeof tableParts>;

export function tableApi(scope: TableScope, table: Table): TableApi<Row> {
  const parts = tableParts(scope, table);
  // The methods call each other through the finished API, as a caller would.
  const api = {} as TableApi<Row>;
  return Object.assign(api, tableReads(parts, api), tableWrites(parts, api));
}

function tableParts(scope: TableScope, table: Table) {
  const { dialect, db, tenantId, inTransaction, changed } = scope;
  const codec: TableCodec = codecFor(table);
  const name = table.name;
  // Outside a transaction a statement is retried on its own when another process holds a lock it
  // needs (SQLite); inside one, the whole transaction is.
  const statement = <T>(run: () => Promise<T>) => retryStatement(name, run, !inTransaction);
  /** A statement that writes: its table's change stamp moves once it has run (or failed). */
  const write = table.changeFeed
    ? <T>(run: () => Promise<T>) => statement(run).finally(() => changed([name]))
    : statement;
  /** Setting only bookkeeping columns (`untracked`) moves no stamp. */
  const untracked = new Set(table.untracked.map((column) => codec.column(column)));
  return {
    scope,
    table,
    dialect,
    db,
    tenantId,
    inTransaction,
    codec,
    name,
    where: (w?: Where<any>) => (eb: any) => whereExpression(eb, codec, tenantId, w),
    // Plain reads may use a separate connection (SQLite: they run while this process writes).
    reader: inTransaction ? db : (dialect.readDb ?? db),
    statement,
    write,
    writeColumns: <T>(values: Row, run: () => Promise<T>) =>
      untracked.size > 0 && Object.keys(values).every((column) => untracked.has(column))
        ? statement(run)
        : write(run),
    decode: (raw: Row) => codec.decodeRow(raw, tenantId === null),
  };
}

type ReadMethods = Pick<
  TableApi<Row>,
  'get' | 'getForUpdate' | 'getMany' | 'find' | 'findOne' | 'count'
>;

function tableReads(p: TableParts, api: TableApi<Row>): ReadMethods {
  const { dialect, db, inTransaction, codec, name, where, reader, statement, decode } = p;
  return {
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
  };
}
