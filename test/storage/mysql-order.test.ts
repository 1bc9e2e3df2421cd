/**
 * MySQL/MariaDB: the last item of a folder, or of a collection's root (`folder_id IS NULL`), is
 * read from the index, not by sorting the whole folder. MariaDB scans and sorts when the ORDER BY
 * names a column the filter pins to one value, so the table API leaves such columns out there.
 * The statement the table API builds is recorded, then explained by a real MariaDB.
 */
import type { CompiledQuery } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FindOptions, StorageDriver } from '../../kernel/storage/contract.ts';
import { createDriver } from '../../kernel/storage/create-driver.ts';
import { createSqlStore } from '../../kernel/storage/kysely/store.ts';
import { col, defineTable } from '../../kernel/storage/table.ts';
import { createTestDatabase, driverAvailable, type TestDatabase } from '../helpers/databases.ts';
import { recordingDialect } from '../helpers/recording-dialect.ts';

const items = defineTable({
  name: 'order_items',
  columns: {
    id: col.id(),
    collectionId: col.id(),
    folderId: col.idNullable(),
    sortOrder: col.int(),
  },
  indexes: [
    ['collectionId', 'folderId', 'sortOrder'],
    ['folderId', 'sortOrder'],
  ],
});

describe.runIf(driverAvailable('mysql'))('the last item of a container on MySQL/MariaDB', () => {
  let database: TestDatabase;
  let driver: StorageDriver;

  beforeAll(async () => {
    database = await createTestDatabase('mysql');
    driver = await createDriver(database.config);
    await driver.applyMigration({ id: 'order-test/0001', createTables: [items] });
    const rows = Array.from({ length: 2000 }, (_, i) => ({
      id: `i${i}`,
      collectionId: 'c1',
      folderId: i % 2 === 0 ? null : 'f1',
      sortOrder: i,
    }));
    await driver.forTenant('t1').table(items).insertMany(rows);
    await database.query('ANALYZE TABLE order_items');
  });
  afterAll(async () => {
    await driver?.close();
    await database?.drop();
  });

  /** What MariaDB plans for the statement the table API runs for `options`. */
  async function plan(options: FindOptions<any>) {
    const recorded: CompiledQuery[] = [];
    const dialect = recordingDialect(recorded, 'mysql');
    await createSqlStore(dialect, dialect.db, 't1', false).table(items).find(options);
    const [query] = recorded;
    const [explained] = await database.query<{ type: string; key: string | null; Extra: string }>(
      `EXPLAIN ${query!.sql}`,
      [...query!.parameters],
    );
    const [last] = await database.query<{ id: string }>(query!.sql, [...query!.parameters]);
    return { ...explained!, last: last?.id };
  }

  it('reads the root’s last item from the index, without sorting', async () => {
    const explained = await plan({
      where: { collectionId: 'c1', folderId: null },
      orderBy: [
        ['folderId', 'desc'],
        ['sortOrder', 'desc'],
      ],
      limit: 1,
    });
    expect(explained.type).not.toBe('ALL');
    expect(explained.key).not.toBeNull();
    expect(explained.Extra ?? '').not.toMatch(/filesort/);
    expect(explained.last).toBe('i1998');
  });

  it('reads a folder’s last item from the index, without sorting', async () => {
    const explained = await plan({
      where: { folderId: 'f1' },
      orderBy: [['sortOrder', 'desc']],
      limit: 1,
    });
    expect(explained.type).not.toBe('ALL');
    expect(explained.Extra ?? '').not.toMatch(/filesort/);
    expect(explained.last).toBe('i1999');
  });
});
