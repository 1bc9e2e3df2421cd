/**
 * The contract's TableApi on Firestore. Reads run directly, or transactionally inside a
 * transaction; every write runs inside one (its own when the caller has none), because keeping
 * unique keys and tenant checks right needs the current row, read and written atomically. The
 * reads are here, the writes in table-writes.ts; both stage through staging.ts.
 */
import type { FindOptions, TableApi, Where } from '../contract.ts';
import type { Table } from '../table.ts';
import { hasNul } from './codec.ts';
import { buildQueries } from './query.ts';
import { GET_CHUNK } from './staging.ts';
import { findFull, tableParts, type TableParts, type TableScope } from './table-parts.ts';
import { tableWrites } from './table-writes.ts';

type Row = Record<string, unknown>;

export function firestoreTableApi(scope: TableScope, table: Table): TableApi<Row> {
  const parts = tableParts(scope, table);
  return { ...tableReads(parts), ...tableWrites(parts) };
}

type ReadMethods = Pick<
  TableApi<Row>,
  'get' | 'getForUpdate' | 'getMany' | 'find' | 'findOne' | 'count'
>;

function tableReads(p: TableParts): ReadMethods {
  const { state, codec, reader, refOf, full, own, out } = p;
  const reads: ReadMethods = {
    async get(id) {
      if (hasNul(id)) return null;
      const [data] = await reader.docs([refOf(id)]);
      if (!data) return null;
      const row = full(data);
      return own(row) ? out(row) : null;
    },
    async getForUpdate(id) {
      if (!state || hasNul(id)) return reads.get(id);
      const row = await p.writer.readForWrite(state, id);
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
      return (await findFull(p, options)).map(out);
    },
    async findOne(where) {
      const [row] = await reads.find({ where, limit: 1 });
      return row ?? null;
    },
    async count(where?: Where<any>) {
      if (
        state &&
        [...state.staged.values()].some((entry) => entry.collection === codec.collection)
      )
        return (await findFull(p, where ? { where } : {})).length;
      const counts = await Promise.all(
        buildQueries(p.collection, codec, p.tenantId, where ? { where } : {}).map((q) =>
          reader.count(q),
        ),
      );
      return counts.reduce((sum, n) => sum + n, 0);
    },
  };
  return reads;
}
