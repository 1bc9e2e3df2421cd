/**
 * The contract's TableApi on Kysely, for one table of a store bound to a tenant (or unscoped) and
 * to an executor: the pool, or an open transaction. The reads are here, the writes in
 * table-writes.ts, what both share in table-parts.ts. Statements' errors are mapped and their
 * retries decided in retry.ts; what a database does its own way, its dialect does (dialects/).
 */
import type { FindOptions, TableApi } from '../contract.ts';
import type { Table } from '../table.ts';
import type { Row } from './dialect.ts';
import { afterExpression } from './query.ts';
import { retryStatement } from './retry.ts';
import { tableParts, type TableParts, type TableScope } from './table-parts.ts';
import { tableWrites } from './table-writes.ts';

const CHUNK = 500;

export function tableApi(scope: TableScope, table: Table): TableApi<Row> {
  const parts = tableParts(scope, table);
  // The methods call each other through the finished API, as a caller would.
  const api = {} as TableApi<Row>;
  return Object.assign(api, tableReads(parts, api), tableWrites(parts, api));
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
