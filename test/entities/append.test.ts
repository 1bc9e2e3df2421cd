/**
 * The appender behind item creates (plugins/entities/routes/append.ts), on the embedded database and on
 * PostgreSQL when configured: concurrent appends to one container are written in batches at
 * consecutive positions in arrival order; a row the database refuses fails only its own append;
 * a container that is gone fails every append of the batch with the same HTTP error.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { notFound } from '../../kernel/errors.ts';
import { kernelMigrations } from '../../kernel/identity/provision.ts';
import { StorageError, type StorageDriver } from '../../kernel/storage/contract.ts';
import { runMigrations } from '../../kernel/storage/migrate.ts';
import { col, defineTable, type RowOfTable } from '../../kernel/storage/table.ts';
import { createAppender } from '../../plugins/entities/routes/append.ts';
import { driverAvailable } from '../helpers/databases.ts';
import { openTestDriver, type TestDriver } from '../helpers/drivers.ts';

const items = defineTable({
  name: 'append_items',
  columns: { id: col.id(), box: col.string(), name: col.string(), sortOrder: col.int() },
  indexes: [['box', 'sortOrder']],
});
type Item = RowOfTable<typeof items>;

const opened: TestDriver[] = [];
afterEach(async () => {
  for (const driver of opened.splice(0)) await driver.cleanup();
});

for (const kind of (['sqlite', 'postgres'] as const).filter(driverAvailable)) {
  describe(`appending items (${kind})`, () => {
    async function setup(gone = new Set<string>(), down = new Set<string>()) {
      const test = await openTestDriver(kind);
      opened.push(test);
      const driver: StorageDriver = test.driver;
      await runMigrations(driver, [
        ...kernelMigrations,
        { id: 'test/append-items', createTables: [items] },
      ]);
      let batches = 0;
      const appender = createAppender<string, Item>({
        key: (box) => box,
        async start(tx, box) {
          batches++;
          if (gone.has(box)) throw notFound('Box not found');
          if (down.has(box))
            throw new StorageError('unavailable', 'The database cannot be reached');
          const [last] = await tx
            .table(items)
            .find({ where: { box }, orderBy: [['sortOrder', 'desc']], limit: 1 });
          return { first: last ? last.sortOrder + 1 : 0, now: '' };
        },
        insert: (tx, rows) => tx.table(items).insertMany(rows),
      });
      const store = driver.forTenant('__default__');
      const append = (box: string, name: string) =>
        appender.append(box, store, (sortOrder) => ({
          id: crypto.randomUUID(),
          box,
          name,
          sortOrder,
        }));
      return { store, append, batches: () => batches, down };
    }

    it('gives 40 concurrent appends to one container positions 0 to 39 in arrival order, in fewer batches than appends', async () => {
      const { store, append, batches } = await setup();
      const rows = await Promise.all(
        Array.from({ length: 40 }, (_, i) => append('a', `item ${i}`)),
      );
      expect(rows.map((row) => row.sortOrder)).toEqual([...Array(40).keys()]);
      expect(rows.map((row) => row.name)).toEqual(
        Array.from({ length: 40 }, (_, i) => `item ${i}`),
      );
      const stored = await store
        .table(items)
        .find({ where: { box: 'a' }, orderBy: [['sortOrder', 'asc']] });
      expect(stored.map((row) => row.name)).toEqual(rows.map((row) => row.name));
      expect(batches()).toBeLessThan(40);
    });

    it('keeps containers apart: each has its own positions', async () => {
      const { append } = await setup();
      const rows = await Promise.all([
        append('a', 'a0'),
        append('b', 'b0'),
        append('a', 'a1'),
        append('b', 'b1'),
      ]);
      expect(rows.map((row) => `${row.box}${row.sortOrder}`)).toEqual(['a0', 'b0', 'a1', 'b1']);
    });

    it('fails only the append whose row the database refuses; the others of its batch land', async () => {
      const { store, append } = await setup();
      const results = await Promise.allSettled([
        append('a', 'first'),
        append('a', 'second'),
        append('a', 'bad\u0000name'),
        append('a', 'fourth'),
      ]);
      expect(results.map((result) => result.status)).toEqual([
        'fulfilled',
        'fulfilled',
        'rejected',
        'fulfilled',
      ]);
      expect((results[2] as PromiseRejectedResult).reason).toBeInstanceOf(StorageError);
      const stored = await store.table(items).find({ where: { box: 'a' } });
      expect(stored.map((row) => row.name).sort()).toEqual(['first', 'fourth', 'second']);
      expect(new Set(stored.map((row) => row.sortOrder)).size).toBe(3);
    });

    it('fails every append of a container that is gone with the same HTTP error, and writes nothing', async () => {
      const { store, append } = await setup(new Set(['gone']));
      const results = await Promise.allSettled(
        Array.from({ length: 5 }, (_, i) => append('gone', `x${i}`)),
      );
      for (const result of results)
        expect(result).toMatchObject({
          status: 'rejected',
          reason: { status: 404, message: 'Box not found' },
        });
      expect(await store.table(items).find({ where: { box: 'gone' } })).toEqual([]);
    });

    it('fails a whole batch at once when the database is unavailable, without re-running its creates one by one', async () => {
      const { append, batches, down } = await setup();
      down.add('a');
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) => append('a', `x${i}`)),
      );
      for (const result of results)
        expect(result).toMatchObject({ status: 'rejected', reason: { code: 'unavailable' } });
      // The first create went alone, the other 19 together: two attempts, not one per create.
      expect(batches()).toBe(2);
    });
  });
}
