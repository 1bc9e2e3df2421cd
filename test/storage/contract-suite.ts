/**
 * The storage contract suite: what every driver must do, asserted through the contract API only.
 * `defineStorageContract` is called once per driver (test/storage/contract.test.ts); a new driver
 * (Firestore) passes by running the same function unchanged.
 */
import { Buffer } from 'node:buffer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StorageError, type Store, type StorageDriver } from '../../kernel/storage/contract.ts';
import { actingAs, NO_CONTEXT } from '../../kernel/storage/context.ts';
import { col, defineTable, type RowOfTable } from '../../kernel/storage/table.ts';

const things = defineTable({
  name: 'contract_things',
  columns: {
    id: col.id(),
    name: col.string(),
    note: col.textNullable(),
    rank: col.int(),
    score: col.intNullable(),
    active: col.bool(),
    data: col.json<Record<string, unknown>>(),
    at: col.timestamp(),
    seenAt: col.timestampNullable(),
  },
  indexes: [['rank', 'id'], ['at']],
  unique: [['name']],
});

const counters = defineTable({
  name: 'contract_counters',
  columns: { id: col.id(), hits: col.int(), bytes: col.int() },
});

/** A versioned row of every column kind, and the table its changes are copied into. */
const drafts = defineTable({
  name: 'contract_drafts',
  columns: {
    id: col.id(),
    name: col.string(),
    note: col.textNullable(),
    version: col.int(),
    active: col.bool(),
    data: col.json<Record<string, unknown>>(),
    at: col.timestamp(),
    seenAt: col.timestampNullable(),
  },
});
const draftCopies = defineTable({
  name: 'contract_draft_copies',
  columns: {
    id: col.id(),
    recordId: col.id(),
    version: col.int(),
    at: col.timestamp(),
    author: col.stringNullable(),
    flagged: col.bool(),
    snapshot: col.json<Record<string, unknown>>(),
  },
  indexes: [['recordId', 'version']],
});

/** Copies that also record their snapshot's size. */
const sizedCopies = defineTable({
  name: 'contract_sized_copies',
  columns: { ...draftCopies.columns, size: col.int() },
  indexes: [['recordId', 'version']],
});

type Thing = RowOfTable<typeof things>;

let sequence = 0;
function thing(overrides: Partial<Thing> = {}): Thing {
  sequence += 1;
  return {
    id: `t-${sequence}-${Math.random().toString(36).slice(2, 8)}`,
    name: `thing-${sequence}-${Math.random().toString(36).slice(2, 8)}`,
    note: null,
    rank: sequence,
    score: null,
    active: true,
    data: { n: sequence },
    at: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, sequence % 1000)).toISOString(),
    seenAt: null,
    ...overrides,
  };
}

export interface OpenedDriver {
  driver: StorageDriver;
  cleanup(): Promise<void>;
}

/** Registers the whole contract for one driver. `serialWriters` is true where one writer at a time exists (SQLite). */
export function defineStorageContract(
  name: string,
  open: () => Promise<OpenedDriver>,
  options: { serialWriters?: boolean } = {},
): void {
  describe(`storage contract on ${name}`, () => {
    let opened: OpenedDriver;
    let a: Store;
    let b: Store;
    const tenantA = `tenant-a-${Math.random().toString(36).slice(2, 8)}`;
    const tenantB = `tenant-b-${Math.random().toString(36).slice(2, 8)}`;

    beforeAll(async () => {
      opened = await open();
      await opened.driver.applyMigration({
        id: 'contract/0001',
        createTables: [things, counters, drafts, draftCopies, sizedCopies],
      });
      a = opened.driver.forTenant(tenantA);
      b = opened.driver.forTenant(tenantB);
    });
    afterAll(async () => {
      await opened?.cleanup();
    });

    describe('migrations', () => {
      it('records applied migrations and never runs one twice', async () => {
        let runs = 0;
        const step = { id: 'contract/0002-data', run: async () => void (runs += 1) };
        await opened.driver.applyMigration(step);
        await opened.driver.applyMigration(step);
        expect(runs).toBe(1);
        const applied = await opened.driver.appliedMigrations();
        expect(applied.indexOf('contract/0001')).toBeLessThan(
          applied.indexOf('contract/0002-data'),
        );
      });

      it('treats creating an existing table and adding an existing column as no-ops', async () => {
        await opened.driver.applyMigration({
          id: 'contract/0003-again',
          createTables: [things],
          addColumns: [{ table: things, columns: ['note'] }],
          addIndexes: [things],
        });
        const row = await a.table(things).insert(thing());
        expect(await a.table(things).get(row.id)).toEqual(row);
      });
    });

    describe('rows', () => {
      it('round-trips every column kind, with millisecond timestamps', async () => {
        const row = thing({
          note: 'ünïcødé ✓ 𝄞 '.repeat(2000),
          score: -42,
          active: false,
          data: { nested: [1, 'two', { three: null }], quote: "it's" },
          at: '2026-03-04T05:06:07.089Z',
          seenAt: '2026-12-31T23:59:59.999Z',
          rank: 2 ** 40,
        });
        await a.table(things).insert(row);
        expect(await a.table(things).get(row.id)).toEqual(row);
      });

      it('answers null, false or zero for missing rows instead of throwing', async () => {
        expect(await a.table(things).get('missing')).toBeNull();
        expect(await a.table(things).update('missing', { rank: 1 })).toBeNull();
        expect(await a.table(things).delete('missing')).toBe(false);
        expect(await a.table(things).deleteWhere({ name: 'missing' })).toBe(0);
        expect(await a.table(things).getMany([])).toEqual([]);
      });

      it('refuses a duplicate id or unique key with a unique StorageError', async () => {
        const row = await a.table(things).insert(thing());
        await expect(a.table(things).insert({ ...thing(), id: row.id })).rejects.toMatchObject({
          code: 'unique',
        });
        await expect(a.table(things).insert(thing({ name: row.name }))).rejects.toSatisfy(
          (e) => e instanceof StorageError && e.code === 'unique',
        );
      });

      it('inserts many rows at once, all or none', async () => {
        const rows = Array.from({ length: 230 }, () => thing());
        expect(await a.table(things).insertMany(rows)).toEqual(rows);
        expect((await a.table(things).getMany(rows.map((row) => row.id))).length).toBe(230);
        expect(await a.table(things).insertMany([])).toEqual([]);
        // A duplicate in the last chunk: nothing of the call lands, also not the earlier chunks.
        const batch = [
          ...Array.from({ length: 150 }, () => thing()),
          { ...thing(), id: rows[0]!.id },
        ];
        await expect(a.table(things).insertMany(batch)).rejects.toMatchObject({ code: 'unique' });
        expect(await a.table(things).getMany(batch.slice(0, 150).map((row) => row.id))).toEqual([]);
        // Two rows of one call that clash with each other (an id, a unique name): none lands.
        const twin = thing();
        const named = thing();
        for (const pair of [
          [twin, { ...thing(), id: twin.id }],
          [named, thing({ name: named.name })],
        ]) {
          await expect(a.table(things).insertMany(pair)).rejects.toMatchObject({ code: 'unique' });
          expect(await a.table(things).getMany(pair.map((row) => row.id))).toEqual([]);
        }
        const inside = [thing(), thing()];
        await expect(
          a.transaction(async (tx) => {
            await tx.table(things).insertMany(inside);
            throw new Error('roll back');
          }),
        ).rejects.toThrow('roll back');
        expect(await a.table(things).getMany(inside.map((row) => row.id))).toEqual([]);
      });

      it('updates some columns and returns the whole row', async () => {
        const row = await a.table(things).insert(thing());
        const updated = await a.table(things).update(row.id, {
          rank: -1,
          data: { changed: true },
          seenAt: '2026-01-02T03:04:05.006Z',
        });
        expect(updated).toEqual({
          ...row,
          rank: -1,
          data: { changed: true },
          seenAt: '2026-01-02T03:04:05.006Z',
        });
      });

      it('updates only when the row also matches the given conditions', async () => {
        const row = await a.table(things).insert(thing({ rank: 3 }));
        expect(await a.table(things).update(row.id, { rank: 4 }, { rank: 99 })).toBeNull();
        expect(await a.table(things).get(row.id)).toEqual(row);
        expect(await a.table(things).update(row.id, { rank: 4 }, { rank: 3, note: null })).toEqual({
          ...row,
          rank: 4,
        });
        expect(await a.table(things).update(row.id, {}, { rank: 5 })).toBeNull();
        expect(await a.table(things).update(row.id, {}, { rank: 4 })).toEqual({ ...row, rank: 4 });
      });

      it('puts a new row, then replaces it', async () => {
        const row = thing();
        await a.table(things).put(row);
        await a.table(things).put({ ...row, rank: 7 });
        expect(await a.table(things).get(row.id)).toEqual({ ...row, rank: 7 });
      });

      it('keeps a transaction usable after a put or insert hits a unique key', async () => {
        const existing = await a.table(things).insert(thing());
        const other = thing();
        await a.transaction(async (tx) => {
          await expect(tx.table(things).put(thing({ name: existing.name }))).rejects.toMatchObject({
            code: 'unique',
          });
          await tx.table(things).insert(other);
        });
        expect(await a.table(things).get(other.id)).toEqual(other);
      });

      it('refuses a NUL character in a value and finds nothing by one', async () => {
        await expect(a.table(things).insert(thing({ name: 'a\u0000b' }))).rejects.toMatchObject({
          code: 'invalid',
          message: expect.stringContaining('name'),
        });
        expect(await a.table(things).get('x\u0000')).toBeNull();
        expect(await a.table(things).getMany(['x\u0000'])).toEqual([]);
      });
    });

    describe('queries', () => {
      const family = `family-${Math.random().toString(36).slice(2, 8)}`;
      let rows: Thing[];
      beforeAll(async () => {
        rows = [];
        for (const [rank, score] of [
          [1, 10],
          [2, null],
          [2, 30],
          [3, 40],
          [5, 50],
        ] as const) {
          rows.push(
            await a
              .table(things)
              .insert(thing({ rank, score, note: family, at: '2026-05-05T05:05:05.555Z' })),
          );
        }
      });
      const mine = { note: family };
      const ids = (list: Thing[]) => list.map((row) => row.id);

      it('filters with equality, null, in, ne and ranges', async () => {
        expect(await a.table(things).count({ ...mine, rank: 2 })).toBe(2);
        expect(ids(await a.table(things).find({ where: { ...mine, score: null } }))).toEqual([
          rows[1]!.id,
        ]);
        expect(await a.table(things).count({ ...mine, rank: { in: [1, 5] } })).toBe(2);
        expect(await a.table(things).count({ ...mine, rank: { in: [] } })).toBe(0);
        expect(await a.table(things).count({ ...mine, rank: { ne: 2 } })).toBe(3);
        expect(await a.table(things).count({ ...mine, score: { ne: null } })).toBe(4);
        expect(await a.table(things).count({ ...mine, rank: { gt: 2 } })).toBe(2);
        expect(await a.table(things).count({ ...mine, rank: { gte: 2 } })).toBe(4);
        expect(await a.table(things).count({ ...mine, rank: { lt: 2 } })).toBe(1);
        expect(await a.table(things).count({ ...mine, rank: { lte: 3 } })).toBe(4);
      });

      it('orders by several columns and limits', async () => {
        const found = await a.table(things).find({
          where: mine,
          orderBy: [
            ['rank', 'desc'],
            ['id', 'asc'],
          ],
          limit: 3,
        });
        const expected = [...rows]
          .sort((x, y) => y.rank - x.rank || (x.id < y.id ? -1 : 1))
          .slice(0, 3);
        expect(ids(found)).toEqual(ids(expected));
      });

      it('pages with a keyset cursor without gaps or repeats when sort values tie', async () => {
        for (const direction of ['asc', 'desc'] as const) {
          const orderBy = [
            ['at', direction],
            ['id', direction],
          ] as const;
          const seen: string[] = [];
          let after: Partial<Thing> | undefined;
          for (;;) {
            const page = await a
              .table(things)
              .find({ where: mine, orderBy, limit: 2, ...(after ? { after } : {}) });
            seen.push(...ids(page));
            if (page.length < 2) break;
            const last = page[page.length - 1]!;
            after = { at: last.at, id: last.id };
          }
          expect(seen).toEqual(ids(await a.table(things).find({ where: mine, orderBy })));
          expect(new Set(seen).size).toBe(rows.length);
        }
      });

      it('updates and deletes every matching row and reports how many', async () => {
        const group = `group-${Math.random().toString(36).slice(2, 8)}`;
        for (let i = 0; i < 3; i++) await a.table(things).insert(thing({ note: group }));
        expect(await a.table(things).updateWhere({ note: group }, { active: false })).toBe(3);
        expect(await a.table(things).count({ note: group, active: false })).toBe(3);
        expect(await a.table(things).deleteWhere({ note: group })).toBe(3);
        expect(await a.table(things).count({ note: group })).toBe(0);
      });
    });

    describe('tenants', () => {
      it('keeps each tenant to its own rows, and unique keys per tenant', async () => {
        const row = await a.table(things).insert(thing());
        expect(await b.table(things).get(row.id)).toBeNull();
        expect(await b.table(things).count({ name: row.name })).toBe(0);
        expect(await b.table(things).update(row.id, { rank: 0 })).toBeNull();
        expect(await b.table(things).delete(row.id)).toBe(false);
        await b.table(things).insert({ ...thing(), name: row.name });
        expect(await a.table(things).get(row.id)).toEqual(row);
      });

      it('never lets put take over another tenant row with the same id', async () => {
        const row = await a.table(things).insert(thing());
        await expect(b.table(things).put({ ...thing(), id: row.id })).rejects.toMatchObject({
          code: 'unique',
        });
        expect(await a.table(things).get(row.id)).toEqual(row);
      });
    });

    describe('insertAll', () => {
      const draftRow = (overrides: Record<string, unknown> = {}) => ({
        id: `d-${Math.random().toString(36).slice(2, 10)}`,
        name: 'draft',
        note: null,
        version: 1,
        active: true,
        data: { nested: [1, 'two', { three: null }] },
        at: '2026-03-04T05:06:07.089Z',
        seenAt: null,
        ...overrides,
      });
      const copyOf = (row: { id: string }) => ({
        id: `c-${row.id}`,
        recordId: row.id,
        version: 1,
        at: '2026-05-06T07:08:09.012Z',
        author: null,
        flagged: false,
        snapshot: { ...row },
      });

      it('inserts the rows of several tables, every column kind intact', async () => {
        const rows = [draftRow(), draftRow({ note: 'n', seenAt: '2026-12-31T23:59:59.999Z' })];
        const extra = [thing(), thing()];
        await a.insertAll([
          { table: drafts, rows },
          { table: draftCopies, rows: rows.map(copyOf) },
          { table: things, rows: extra },
          { table: counters, rows: [] },
        ]);
        expect(await a.table(drafts).getMany(rows.map((row) => row.id))).toEqual(
          expect.arrayContaining(rows),
        );
        for (const row of rows)
          expect(await a.table(draftCopies).get(`c-${row.id}`)).toEqual(copyOf(row));
        expect(await a.table(things).getMany(extra.map((row) => row.id))).toHaveLength(2);
        await a.insertAll([]);
      });

      it('inserts none of the batches when one row is refused, alone or in a transaction', async () => {
        const taken = await a.table(things).insert(thing());
        const rows = [draftRow()];
        await expect(
          a.insertAll([
            { table: drafts, rows },
            { table: things, rows: [thing(), { ...thing(), id: taken.id }] },
          ]),
        ).rejects.toMatchObject({ code: 'unique', table: things.name });
        expect(await a.table(drafts).get(rows[0]!.id)).toBeNull();
        const inside = [draftRow()];
        await expect(
          a.transaction(async (tx) => {
            await tx.insertAll([
              { table: drafts, rows: inside },
              { table: draftCopies, rows: inside.map(copyOf) },
            ]);
            throw new Error('roll back');
          }),
        ).rejects.toThrow('roll back');
        expect(await a.table(drafts).get(inside[0]!.id)).toBeNull();
        expect(await a.table(draftCopies).get(`c-${inside[0]!.id}`)).toBeNull();
      });

      it('lets the tenant see only its own inserted rows', async () => {
        const mine = [thing()];
        await a.insertAll([
          { table: things, rows: mine },
          { table: drafts, rows: [draftRow()] },
        ]);
        expect(await b.table(things).get(mine[0]!.id)).toBeNull();
        expect(await a.table(things).get(mine[0]!.id)).toEqual(mine[0]);
      });
    });

    describe('updateVersioned', () => {
      const draft = () => ({
        id: `d-${Math.random().toString(36).slice(2, 10)}`,
        name: 'draft',
        note: null,
        version: 1,
        active: false,
        data: { nested: [1, 'two', { three: null }], quote: "it's" },
        at: '2026-03-04T05:06:07.089Z',
        seenAt: null,
      });
      const copy = (id: string, author: string | null = 'ann') => ({
        into: draftCopies,
        row: { id, at: '2026-05-06T07:08:09.012Z', author, flagged: true },
        recordColumn: 'recordId',
        versionColumn: 'version',
        snapshotColumn: 'snapshot',
      });

      it('changes the row, adds one to its version and copies the changed row, all kinds intact', async () => {
        const row = await a.table(drafts).insert(draft());
        const patch = { name: 'edited', seenAt: '2026-12-31T23:59:59.999Z', data: { n: [2] } };
        const changed = await a
          .table(drafts)
          .updateVersioned(row.id, patch, { name: 'draft', note: null }, copy(`c-${row.id}`));
        const expected = { ...row, ...patch, version: 2 };
        expect(changed).toEqual(expected);
        expect(await a.table(drafts).get(row.id)).toEqual(expected);
        expect(await a.table(draftCopies).get(`c-${row.id}`)).toEqual({
          id: `c-${row.id}`,
          recordId: row.id,
          version: 2,
          at: '2026-05-06T07:08:09.012Z',
          author: 'ann',
          flagged: true,
          snapshot: expected,
        });
      });

      it('writes nothing when the row does not match, is missing or is another tenant’s', async () => {
        const row = await a.table(drafts).insert(draft());
        const tries = [
          () => a.table(drafts).updateVersioned(row.id, { name: 'x' }, { version: 7 }, copy('c1')),
          () => a.table(drafts).updateVersioned('missing', { name: 'x' }, {}, copy('c2')),
          () => b.table(drafts).updateVersioned(row.id, { name: 'x' }, {}, copy('c3', null)),
        ];
        for (const attempt of tries) expect(await attempt()).toBeNull();
        expect(await a.table(drafts).get(row.id)).toEqual(row);
        expect(await a.table(draftCopies).count({ recordId: row.id })).toBe(0);
        expect(await b.table(draftCopies).count({ recordId: row.id })).toBe(0);
      });

      it('matches a number below a bound, and records and tells the size of each copy', async () => {
        const row = await a.table(drafts).insert(draft());
        const told = new Map<string, number>();
        const sized = (id: string) => ({
          ...copy(id),
          into: sizedCopies,
          sizeColumn: 'size',
          sized: (bytes: number) => told.set(id, bytes),
        });
        const edit = (match: Record<string, string | number | { lt: number }>, id: string) =>
          a.table(drafts).updateVersioned(row.id, { name: id }, match, sized(id));
        expect(await edit({ version: { lt: 1 } }, `s0-${row.id}`)).toBeNull();
        expect(await edit({ version: { lt: 2 } }, `s1-${row.id}`)).toMatchObject({ version: 2 });
        // Inside a transaction too (SQLite writes the copy itself there).
        await a.transaction(async (tx) => {
          await tx
            .table(drafts)
            .updateVersioned(
              row.id,
              { note: 'é€😀' },
              { name: `s1-${row.id}` },
              sized(`s2-${row.id}`),
            );
        });
        const copies = await a.table(sizedCopies).find({ where: { recordId: row.id } });
        expect(copies.map((c) => c.version).sort()).toEqual([2, 3]);
        expect([...told.keys()].sort()).toEqual([`s1-${row.id}`, `s2-${row.id}`]);
        for (const c of copies) {
          expect(told.get(c.id)).toBe(c.size);
          // The bytes of the snapshot's JSON as the database keeps it: at least the compact form.
          expect(c.size).toBeGreaterThanOrEqual(Buffer.byteLength(JSON.stringify(c.snapshot)));
          expect(c.size).toBeLessThan(2 * Buffer.byteLength(JSON.stringify(c.snapshot)));
        }
      });

      it('rolls back with the transaction it runs in', async () => {
        const row = await a.table(drafts).insert(draft());
        await expect(
          a.transaction(async (tx) => {
            await tx.table(drafts).updateVersioned(row.id, { name: 'x' }, {}, copy(`r-${row.id}`));
            throw new Error('abandon');
          }),
        ).rejects.toThrow('abandon');
        expect(await a.table(drafts).get(row.id)).toEqual(row);
        expect(await a.table(draftCopies).get(`r-${row.id}`)).toBeNull();
      });
    });

    describe('increment', () => {
      it('adds atomically, seeds a missing row from init, and loses nothing under concurrency', async () => {
        const id = `c-${Math.random().toString(36).slice(2, 8)}`;
        expect(await a.table(counters).increment(id, { hits: 1 })).toBeNull();
        const init = { id, hits: 0, bytes: 0 };
        await Promise.all(
          Array.from({ length: 20 }, () =>
            a.table(counters).increment(id, { hits: 1, bytes: 10 }, init),
          ),
        );
        expect(await a.table(counters).get(id)).toEqual({ id, hits: 20, bytes: 200 });
        expect(await b.table(counters).get(id)).toBeNull();
      });
    });

    describe('transactions', () => {
      it('commits every write together', async () => {
        const [x, y] = [thing(), thing()];
        await a.transaction(async (tx) => {
          await tx.table(things).insert(x);
          await tx.table(things).insert(y);
        });
        expect(await a.table(things).getMany([x.id, y.id])).toHaveLength(2);
      });

      it('rolls back every write when the function throws', async () => {
        const [x, y] = [thing(), thing()];
        const existing = await a.table(things).insert(thing());
        await expect(
          a.transaction(async (tx) => {
            await tx.table(things).insert(x);
            await tx.table(things).update(existing.id, { rank: 999 });
            await tx.table(things).insert({ ...y, name: x.name });
          }),
        ).rejects.toMatchObject({ code: 'unique' });
        expect(await a.table(things).get(x.id)).toBeNull();
        expect((await a.table(things).get(existing.id))!.rank).toBe(existing.rank);
      });

      it('hands the context a store was made with to its transactions, nested ones too', async () => {
        const context = actingAs({ requestId: 'r-1', ip: null, actor: () => null });
        const store = opened.driver.forTenant(tenantA, context);
        expect(store.context).toBe(context);
        expect(a.context).toBe(NO_CONTEXT);
        const x = thing();
        const [outer, inner] = await store.transaction(async (tx) => {
          await tx.table(things).insert(x);
          return tx.transaction(async (nested) => [tx.context, nested.context]);
        });
        expect(outer).toBe(context);
        expect(inner).toBe(context);
        expect(await a.table(things).get(x.id)).toMatchObject({ id: x.id });
      });

      it('joins an outer transaction from a nested call', async () => {
        const x = thing();
        await expect(
          a.transaction(async (tx) => {
            await tx.transaction(async (inner) => void (await inner.table(things).insert(x)));
            throw new Error('abort');
          }),
        ).rejects.toThrow('abort');
        expect(await a.table(things).get(x.id)).toBeNull();
      });

      it('makes a second writer wait for a row another transaction locked', async () => {
        const row = await a.table(things).insert(thing({ rank: 0 }));
        const events: string[] = [];
        let release!: () => void;
        const held = new Promise<void>((resolve) => (release = resolve));
        let locked!: () => void;
        const isLocked = new Promise<void>((resolve) => (locked = resolve));
        const first = a.transaction(async (tx) => {
          await tx.table(things).getForUpdate(row.id);
          locked();
          await held;
          events.push('first writes');
          await tx.table(things).update(row.id, { rank: 1 });
        });
        await isLocked;
        const second = a.transaction(async (tx) => {
          const seen = await tx.table(things).getForUpdate(row.id);
          events.push(`second read rank ${seen!.rank}`);
          await tx.table(things).update(row.id, { rank: seen!.rank + 1 });
        });
        if (options.serialWriters) {
          release();
        } else {
          await new Promise((resolve) => setTimeout(resolve, 200));
          events.push('released');
          release();
        }
        await Promise.all([first, second]);
        expect(events.filter((e) => e !== 'released')).toEqual([
          'first writes',
          'second read rank 1',
        ]);
        expect((await a.table(things).get(row.id))!.rank).toBe(2);
      });

      // One writer (SQLite) runs transactions one after another, so it can never deadlock.
      if (!options.serialWriters)
        it('runs a transaction again when it loses a deadlock, so both land', async () => {
          const x = await a.table(things).insert(thing({ rank: 0 }));
          const y = await a.table(things).insert(thing({ rank: 0 }));
          let arrived = 0;
          let bothHold!: () => void;
          const barrier = new Promise<void>((resolve) => (bothHold = resolve));
          const attempts = { one: 0, two: 0 };
          const crossing = (key: 'one' | 'two', firstId: string, secondId: string) =>
            a.transaction(async (tx) => {
              attempts[key] += 1;
              await tx.table(things).getForUpdate(firstId);
              if (attempts[key] === 1) {
                if (++arrived === 2) bothHold();
                await barrier;
              }
              const other = await tx.table(things).getForUpdate(secondId);
              await tx.table(things).update(secondId, { rank: other!.rank + 1 });
            });
          await Promise.all([crossing('one', x.id, y.id), crossing('two', y.id, x.id)]);
          expect(attempts.one + attempts.two).toBe(3);
          expect(
            (await a.table(things).get(x.id))!.rank + (await a.table(things).get(y.id))!.rank,
          ).toBe(2);
        });
    });
  });
}
