/**
 * What the reads (table-api.ts) and the writes (table-writes.ts) of one Firestore table share:
 * its codec, reader, writer and tenant rules, and the query that sees a transaction's staged
 * writes.
 */
import type { DocumentData } from '@google-cloud/firestore';
import type { FindOptions, Store, TableApi } from '../contract.ts';
import type { Table } from '../table.ts';
import { codecFor, docId, TENANT_FIELD } from './codec.ts';
import type { FirestoreContext } from './gate.ts';
import { buildQueries, compareRows, isAfterCursor, matchesWhere } from './query.ts';
import { createReader, type TxState } from './session.ts';
import { tableWriter } from './staging.ts';

type Row = Record<string, unknown>;

/** What the reads and the writes of one table share: its codec, reader, writer and tenant rules. */
export type TableParts = ReturnType<typeof tableParts>;

export interface TableScope {
  readonly ctx: FirestoreContext;
  readonly tenantId: string | null;
  /** The open transaction attempt, or null outside a transaction. */
  readonly state: TxState | null;
  /** The store this table belongs to, used to open a transaction for a lone write. */
  readonly store: Store;
}

export function tableParts(scope: TableScope, table: Table) {
  const { ctx, tenantId, state } = scope;
  const codec = codecFor(table);
  const collection = ctx.db.collection(codec.collection);
  const reader = createReader(ctx.db, state);
  return {
    scope,
    table,
    ctx,
    tenantId,
    state,
    codec,
    collection,
    reader,
    writer: tableWriter(ctx, table, reader),
    refOf: (id: string) => collection.doc(docId(id)),
    full: (data: DocumentData) => codec.decodeDoc(data, true),
    own: (row: Row) => !table.tenantScoped || tenantId === null || row[TENANT_FIELD] === tenantId,
    out: (row: Row): Row => {
      if (tenantId === null || !table.tenantScoped) return row;
      const { [TENANT_FIELD]: _tenant, ...rest } = row;
      return rest;
    },
    // A lone write becomes a transaction of one write, run through the same code.
    alone: <R>(run: (api: TableApi<Row>) => Promise<R>) =>
      scope.store.transaction((tx) => run(tx.table(table) as TableApi<Row>)),
  };
}

/** Matching rows with their tenant, staged writes included. */
export async function findFull(p: TableParts, options: FindOptions<any>): Promise<Row[]> {
  const { codec, tenantId, state } = p;
  const queries = buildQueries(p.collection, codec, tenantId, options);
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
  for (const docs of await Promise.all(asked.map((q) => p.reader.query(q)))) {
    for (const doc of docs) byPath.set(doc.path, p.full(doc.data));
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
}
