/**
 * The contract's TableApi on Firestore. Reads run directly, or transactionally inside a
 * transaction; every write runs inside one (its own when the caller has none), because keeping
 * unique keys and tenant checks right needs the current row, read and written atomically.
 */
import type { DocumentData, Firestore } from '@google-cloud/firestore';
import {
  StorageError,
  type FindOptions,
  type Store,
  type TableApi,
  type Where,
} from '../contract.ts';
import type { Table } from '../table.ts';
import { codecFor, docId, hasNul, TENANT_FIELD } from './codec.ts';
import type { LockManager } from './locks.ts';
import { buildQueries, compareRows, isAfterCursor, matchesWhere } from './query.ts';
import { createReader, stage, uniqueError, uniqueKeyRef, type TxState } from './session.ts';

type Row = Record<string, unknown>;
const GET_CHUNK = 300;

/** What every store of one driver shares. */
export interface FirestoreContext {
  readonly db: Firestore;
  readonly locks: LockManager;
  /** Counts top-level calls in flight, so close() can wait for them and refuse new ones. */
  readonly gate: Gate;
}

export interface Gate {
  run<T>(call: () => Promise<T>): Promise<T>;
  /** Refuses new calls, then resolves once those in flight have finished. */
  close(): Promise<void>;
}

/**
 * Answers `unavailable` once `ms` pass: the client's own deadlines and retries can hold a call for
 * minutes when the backend stalls. The call itself goes on (the gate still counts it, and its late
 * failure is dropped here, not left unhandled).
 */
export function withDeadline<T>(running: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new StorageError('unavailable', `The database did not answer within ${ms} ms`));
    }, ms);
    running.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/**
 * The Firestore client neither waits for calls in flight when terminated nor fails them cleanly (a
 * transaction started on a terminated client hangs and leaks a rejection), so the driver keeps
 * its own count: the contract's close() waits for in-flight work, and later calls fail at once.
 */
export function createGate(timeoutMillis?: number): Gate {
  let active = 0;
  let closing = false;
  let drained: (() => void) | null = null;
  return {
    async run(call) {
      if (closing) throw new StorageError('unavailable', 'The database connection is closed');
      active += 1;
      const running = (async () => {
        try {
          return await call();
        } finally {
          active -= 1;
          if (active === 0) drained?.();
        }
      })();
      return timeoutMillis ? withDeadline(running, timeoutMillis) : running;
    },
    async close() {
      closing = true;
      if (active > 0) await new Promise<void>((resolve) => (drained = resolve));
    },
  };
}

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

  /** The tenant a new row gets: the store's, or the row's own through the unscoped store. */
  const tenantFor = (row: Row): string | null => {
    if (!table.tenantScoped) return null;
    const tenant = tenantId ?? (row[TENANT_FIELD] as string | undefined);
    if (!tenant)
      throw new TypeError(`Inserting into ${table.name} through the unscoped store needs tenantId`);
    return tenant;
  };

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

  /** Stages new documents, refusing ids and unique values already taken here or in Firestore. */
  const stageCreates = async (
    tx: TxState,
    creates: {
      ref: ReturnType<typeof refOf>;
      columns: readonly string[];
      data: DocumentData;
      row?: Row;
    }[],
  ) => {
    // Lock what we create too: two creators of one id or unique value in this process take turns
    // here, where a deadlock is seen at once, instead of inside Firestore.
    for (const { ref } of creates) await ctx.locks.acquire(tx.owner, ref.path);
    for (const { ref, columns } of creates) {
      if (tx.staged.get(ref.path)?.data) throw uniqueError(table.name, columns);
    }
    // A quick look outside the transaction reports most duplicates at once; the create
    // precondition at commit is what guarantees uniqueness under concurrent writers.
    const unstaged = creates.filter(({ ref }) => !tx.staged.has(ref.path));
    const snaps = unstaged.length ? await ctx.db.getAll(...unstaged.map(({ ref }) => ref)) : [];
    snaps.forEach((snap, i) => {
      if (snap.exists) throw uniqueError(table.name, unstaged[i]!.columns);
    });
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
  };

  const keyData = (row: Row, columns: readonly string[]) => ({
    table: table.name,
    tenantId: row[TENANT_FIELD] ?? null,
    columns,
    rowId: row.id,
  });

  const stageInsert = async (tx: TxState, row: Row, tenant: string | null): Promise<Row> => {
    const data = codec.encodeRow(row, tenant);
    const next = full(data);
    await stageCreates(tx, [
      { ref: refOf(String(row.id)), columns: ['id'], data, row: next },
      ...keysOf(next).map(({ ref, columns }) => ({ ref, columns, data: keyData(next, columns) })),
    ]);
    return next;
  };

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
      tx,
      newKeys
        .filter(({ ref }) => !had.has(ref.path))
        .map(({ ref, columns }) => ({ ref, columns, data: keyData(next, columns) })),
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
      for (const row of rows) await stageInsert(state, row, tenantFor(row));
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
