/**
 * Staging one table's writes in a Firestore transaction attempt: each written document and unique
 * key is locked in this process, checked, and staged for the commit (see session.ts). A unique
 * value is a document of its own, created with a precondition, so Firestore refuses a duplicate
 * even from another process.
 */
import type { DocumentData, DocumentReference } from '@google-cloud/firestore';
import type { Table } from '../table.ts';
import { codecFor, docId, hasNul, TENANT_FIELD } from './codec.ts';
import type { FirestoreContext } from './gate.ts';
import { stage, uniqueError, uniqueKeyRef, type Reader, type TxState } from './session.ts';

type Row = Record<string, unknown>;

export type TableWriter = ReturnType<typeof tableWriter>;

/** Documents read by one `getAll` of the driver's batched reads. */
export const GET_CHUNK = 300;

/** A document to create: a row, or the document holding one of its unique values. */
interface Create {
  readonly ref: DocumentReference;
  readonly columns: readonly string[];
  readonly data: DocumentData;
  readonly row?: Row;
}

/** Stages new documents, refusing ids and unique values already taken here or in Firestore. */
async function stageCreates(
  ctx: FirestoreContext,
  table: Table,
  tx: TxState,
  creates: readonly Create[],
): Promise<void> {
  // Lock what we create too: two creators of one id or unique value in this process take turns
  // here, where a deadlock is seen at once, instead of inside Firestore.
  for (const { ref } of creates) await ctx.locks.acquire(tx.owner, ref.path);
  const paths = new Set<string>();
  for (const { ref, columns } of creates) {
    if (tx.staged.get(ref.path)?.data || paths.has(ref.path))
      throw uniqueError(table.name, columns);
    paths.add(ref.path);
  }
  // A quick look outside the transaction reports most duplicates at once; the create
  // precondition at commit is what guarantees uniqueness under concurrent writers.
  const unstaged = creates.filter(({ ref }) => !tx.staged.has(ref.path));
  for (let i = 0; i < unstaged.length; i += GET_CHUNK) {
    const chunk = unstaged.slice(i, i + GET_CHUNK);
    const snaps = await ctx.db.getAll(...chunk.map(({ ref }) => ref));
    snaps.forEach((snap, j) => {
      if (snap.exists) throw uniqueError(table.name, chunk[j]!.columns);
    });
  }
  for (const { ref, columns, data, row } of creates) {
    stage(tx, {
      ref,
      collection: ref.parent.id,
      data,
      create: true,
      constraint: { table: table.name, columns },
      ...(row ? { row } : {}),
    });
  }
}

/** The document that holds one unique value of a row. */
const keyData = (table: Table, row: Row, columns: readonly string[]) => ({
  table: table.name,
  tenantId: row[TENANT_FIELD] ?? null,
  columns,
  rowId: row.id,
});

export function tableWriter(ctx: FirestoreContext, table: Table, reader: Reader) {
  const codec = codecFor(table);
  const collection = ctx.db.collection(codec.collection);
  const refOf = (id: string) => collection.doc(docId(id));
  const full = (data: DocumentData) => codec.decodeDoc(data, true);

  const readForWrite = async (tx: TxState, id: string): Promise<Row | null> => {
    if (hasNul(id)) return null;
    const ref = refOf(id);
    await ctx.locks.acquire(tx.owner, ref.path);
    const [data] = await reader.docs([ref], true);
    return data ? full(data) : null;
  };

  const keysOf = (row: Row) =>
    table.unique.flatMap((columns) => {
      const ref = uniqueKeyRef(
        ctx.db,
        codec.collection,
        (row[TENANT_FIELD] as string | undefined) ?? null,
        columns,
        row,
      );
      return ref ? [{ ref, columns }] : [];
    });

  /**
   * Stages new rows (each with its tenant), all or none: one look for duplicates covers them
   * all, so a batch costs one read of Firestore, not one per row.
   */
  const stageInserts = async (
    tx: TxState,
    rows: readonly { row: Row; tenant: string | null }[],
  ): Promise<Row[]> => {
    const created = rows.map(({ row, tenant }) => {
      const data = codec.encodeRow(row, tenant);
      return { id: String(row.id), data, next: full(data) };
    });
    await stageCreates(
      ctx,
      table,
      tx,
      created.flatMap(({ id, data, next }) => [
        { ref: refOf(id), columns: ['id'], data, row: next },
        ...keysOf(next).map(({ ref, columns }) => ({
          ref,
          columns,
          data: keyData(table, next, columns),
        })),
      ]),
    );
    return created.map(({ next }) => next);
  };

  const stageInsert = async (tx: TxState, row: Row, tenant: string | null): Promise<Row> =>
    (await stageInserts(tx, [{ row, tenant }]))[0]!;

  const stageReplace = async (tx: TxState, before: Row, after: Row): Promise<Row> => {
    const data = codec.encodeRow(after, (before[TENANT_FIELD] as string | undefined) ?? null);
    const next = full(data);
    const oldKeys = keysOf(before);
    const newKeys = keysOf(next);
    const kept = new Set(newKeys.map(({ ref }) => ref.path));
    for (const { ref } of oldKeys) {
      if (kept.has(ref.path)) continue;
      await ctx.locks.acquire(tx.owner, ref.path);
      stage(tx, { ref, collection: ref.parent.id, data: null, create: false });
    }
    const had = new Set(oldKeys.map(({ ref }) => ref.path));
    await stageCreates(
      ctx,
      table,
      tx,
      newKeys
        .filter(({ ref }) => !had.has(ref.path))
        .map(({ ref, columns }) => ({ ref, columns, data: keyData(table, next, columns) })),
    );
    const ref = refOf(String(before.id));
    stage(tx, { ref, collection: codec.collection, data, create: false, row: next });
    return next;
  };

  const stageDelete = async (tx: TxState, before: Row) => {
    for (const { ref } of keysOf(before)) {
      await ctx.locks.acquire(tx.owner, ref.path);
      stage(tx, { ref, collection: ref.parent.id, data: null, create: false });
    }
    stage(tx, {
      ref: refOf(String(before.id)),
      collection: codec.collection,
      data: null,
      create: false,
    });
  };

  return { readForWrite, stageInsert, stageInserts, stageReplace, stageDelete };
}
