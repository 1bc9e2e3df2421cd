/**
 * PostgreSQL's prepared statements: the pool prepares each statement once per connection, and a
 * connection whose prepared `SELECT *` another process's migration made stale (a column added) is
 * dropped after one 503, so the next statement answers from a fresh connection. With
 * `preparedStatements: false` the same change costs nothing.
 */
import { describe, expect, it } from 'vitest';
import { col, defineTable } from '../../kernel/storage/table.ts';
import { openTestDriver } from '../helpers/drivers.ts';
import { driverAvailable } from '../helpers/databases.ts';

const notes = defineTable({
  name: 'prepared_notes',
  columns: { id: col.id(), text: col.text() },
});

/** The pool's one connection reads a row, then another connection adds a column to its table. */
async function readAcrossMigration(preparedStatements: boolean) {
  const opened = await openTestDriver('postgres', (config) => ({
    ...config,
    max: 1,
    preparedStatements,
  }));
  try {
    await opened.driver.applyMigration({ id: 'prepared/0001', createTables: [notes] });
    const store = opened.driver.forTenant('t1');
    const row = { id: 'n1', text: 'hello' };
    await store.table(notes).insert(row);
    expect(await store.table(notes).get('n1')).toEqual(row);
    await opened.database.query(`ALTER TABLE ${notes.name} ADD COLUMN extra TEXT`);
    const next = await store
      .table(notes)
      .get('n1')
      .then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      );
    return { next, after: await store.table(notes).get('n1'), row };
  } finally {
    await opened.cleanup();
  }
}

describe.runIf(driverAvailable('postgres'))('prepared statements on PostgreSQL', () => {
  it('answers 503 once for a statement a migration made stale, then reads on a new connection', async () => {
    const { next, after, row } = await readAcrossMigration(true);
    expect(next).toMatchObject({ error: { code: 'unavailable' } });
    expect(after).toEqual(row);
  });

  it('with preparedStatements: false, reads straight through the same migration', async () => {
    const { next, after, row } = await readAcrossMigration(false);
    expect(next).toEqual({ value: row });
    expect(after).toEqual(row);
  });
});
