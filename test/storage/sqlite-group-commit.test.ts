/**
 * Group commit on the embedded database (kernel/storage/kysely/sqlite-writer.ts): transactions
 * that end in one turn of the event loop share one COMMIT, each is reported done only once that
 * COMMIT has run, and one that fails takes nothing of the others with it. A second connection to
 * the file stands for another process: it sees only what is committed.
 */
import { createRequire } from 'node:module';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { StorageDriver, Store } from '../../kernel/storage/contract.ts';
import { createDriver } from '../../kernel/storage/create-driver.ts';
import { col, defineTable } from '../../kernel/storage/table.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/databases.ts';

const notes = defineTable({
  name: 'group_notes',
  columns: { id: col.id(), body: col.string() },
});
/** Its rows name a parent row; the check is deferred to COMMIT (created by hand below). */
const children = defineTable({
  name: 'group_children',
  columns: { id: col.id(), parent: col.string() },
  tenantScoped: false,
});

/**
 * Runs `fn(i)` for each i from its own callback, as requests arriving on different sockets: every
 * transaction has ended before the next one begins, so they share a group only by its wait.
 */
function eachInItsOwnCallback<T>(count: number, fn: (i: number) => Promise<T>) {
  return Promise.allSettled(
    Array.from(
      { length: count },
      (_, i) =>
        new Promise<T>((resolve, reject) => setImmediate(() => fn(i).then(resolve, reject))),
    ),
  );
}

interface OtherConnection {
  prepare(sql: string): { get(...params: unknown[]): Record<string, unknown> | undefined };
  exec(sql: string): void;
  close(): void;
}

describe('group commit on the embedded database', () => {
  let database: TestDatabase;
  let driver: StorageDriver;
  let store: Store;
  let other: OtherConnection;

  const committed = (table: string) =>
    Number(other.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get()!.n);
  const committedId = (table: string, id: string) =>
    other.prepare(`SELECT id FROM ${table} WHERE id = ?`).get(id) !== undefined;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    const path = (database.config as { path: string }).path;
    driver = await createDriver(database.config);
    await driver.applyMigration({ id: 'group-test/0001', createTables: [notes] });
    const Database = createRequire(import.meta.url)('libsql') as new (
      path: string,
    ) => OtherConnection;
    other = new Database(path);
    other.exec(
      'CREATE TABLE group_parents (id TEXT PRIMARY KEY); ' +
        'CREATE TABLE group_children (id TEXT PRIMARY KEY, parent TEXT NOT NULL ' +
        'REFERENCES group_parents (id) DEFERRABLE INITIALLY DEFERRED); ' +
        "INSERT INTO group_parents (id) VALUES ('p1'); " +
        "CREATE TRIGGER group_abort BEFORE INSERT ON group_notes WHEN NEW.body = 'abort' " +
        "BEGIN SELECT RAISE(ROLLBACK, 'aborted by a trigger'); END",
    );
    store = driver.forTenant('t1');
  });
  beforeEach(() => {
    other.exec('DELETE FROM group_notes; DELETE FROM group_children');
  });
  afterAll(async () => {
    other?.close();
    await driver?.close();
    await database?.drop();
  });

  it('commits transactions begun in one turn of the event loop together: another connection sees none of them, then all', async () => {
    const seenInside: number[] = [];
    const seenWhenDone: number[] = [];
    const outcomes = await eachInItsOwnCallback(8, (i) =>
      store
        .transaction(async (tx) => {
          await tx.table(notes).insert({ id: `n${i}`, body: `note ${i}` });
          seenInside.push(committed('group_notes'));
        })
        .then(() => seenWhenDone.push(committed('group_notes'))),
    );
    expect(outcomes.every((o) => o.status === 'fulfilled')).toBe(true);
    // While the transactions ran, none of them was committed; each was reported done only once
    // all eight were.
    expect(seenInside).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(seenWhenDone).toEqual([8, 8, 8, 8, 8, 8, 8, 8]);
  });

  it('rolls back a transaction that fails inside a group and keeps the others', async () => {
    const outcomes = await eachInItsOwnCallback(6, (i) =>
      store.transaction(async (tx) => {
        await tx.table(notes).insert({ id: `k${i}`, body: `note ${i}` });
        if (i === 2) throw new Error('the third one changes its mind');
        await tx.table(notes).update(`k${i}`, { body: `note ${i}, edited` });
      }),
    );
    expect(outcomes.map((o) => o.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
      'fulfilled',
    ]);
    expect(committed('group_notes')).toBe(5);
    expect(committedId('group_notes', 'k2')).toBe(false);
    const kept = await store.table(notes).get('k5');
    expect(kept?.body).toBe('note 5, edited');
  });

  it('fails every transaction of a group whose COMMIT fails, keeps none of their rows, and commits the next one', async () => {
    const unscoped = driver.unscoped();
    const parents = ['p1', 'p1', 'missing', 'p1'];
    const outcomes = await eachInItsOwnCallback(4, (i) =>
      unscoped.transaction(async (tx) => {
        await tx.table(children).insert({ id: `c${i}`, parent: parents[i]! });
      }),
    );
    // The deferred check runs at the group's COMMIT, which takes all four down with it.
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected', 'rejected']);
    expect(committed('group_children')).toBe(0);

    await unscoped.transaction(async (tx) => {
      await tx.table(children).insert({ id: 'c9', parent: 'p1' });
    });
    expect(committedId('group_children', 'c9')).toBe(true);
  });

  it('runs again the transactions of a group that SQLite rolled back whole for another one', async () => {
    // RAISE(ROLLBACK) ends the whole SQLite transaction, as a full disk or an I/O error does.
    const outcomes = await eachInItsOwnCallback(4, (i) =>
      store.transaction(async (tx) => {
        await tx.table(notes).insert({ id: `a${i}`, body: i === 2 ? 'abort' : `note ${i}` });
      }),
    );
    expect(outcomes.map((o) => o.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    expect(committed('group_notes')).toBe(3);
    expect(committedId('group_notes', 'a2')).toBe(false);
  });

  it('commits the group before the connection passes to a transaction that waited for it', async () => {
    // Begun together, the second waits for the connection; it then waits for the first's answer,
    // which it could never get if the first's COMMIT waited for the second.
    const first = store.transaction(async (tx) => {
      await tx.table(notes).insert({ id: 'w1', body: 'first' });
    });
    const second = store.transaction(async (tx) => {
      await first;
      await tx.table(notes).insert({ id: 'w2', body: 'second' });
      return committedId('group_notes', 'w1');
    });
    expect(await second).toBe(true);
    expect(committed('group_notes')).toBe(2);
  });

  it('commits a lone transaction before reporting it done', async () => {
    await store.transaction(async (tx) => {
      await tx.table(notes).insert({ id: 'lone', body: 'alone' });
    });
    expect(committedId('group_notes', 'lone')).toBe(true);
  });
});
