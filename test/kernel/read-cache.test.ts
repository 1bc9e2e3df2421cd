/**
 * The read cache and the change stamps under it, on real drivers: SQLite always, PostgreSQL and
 * MySQL when configured. Stamps move on this process's writes (also of a transaction that fails),
 * on another process's commits (a second driver on the same database), and on PostgreSQL stand
 * aside while the LISTEN connection is gone; the cache keeps to its byte budget.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createReadCache, requestContext } from '../../kernel/cache.ts';
import { NO_CONTEXT } from '../../kernel/storage/context.ts';
import type { Migration, Store, StorageDriver } from '../../kernel/storage/contract.ts';
import type { PostgresDbConfig } from '../../kernel/storage/config.ts';
import { createDriver } from '../../kernel/storage/create-driver.ts';
import { runMigrations } from '../../kernel/storage/migrate.ts';
import { col, defineTable } from '../../kernel/storage/table.ts';
import { kernelMigrations } from '../../kernel/identity/provision.ts';
import { eventually } from '../helpers/async.ts';
import { startListenerProxy } from '../helpers/listener-proxy.ts';
import { createTestDatabase, driverAvailable, type TestDatabase } from '../helpers/databases.ts';

const notes = defineTable({ name: 'cache_notes', columns: { id: col.id(), text: col.string() } });
const others = defineTable({ name: 'cache_others', columns: { id: col.id(), text: col.string() } });
const marks = defineTable({
  name: 'cache_marks',
  columns: { id: col.id(), text: col.string(), seen: col.int() },
  untracked: ['seen'],
});
/** An append-only log no cache reads, as revisions and the audit log are. */
const log = defineTable({
  name: 'cache_log',
  columns: { id: col.id(), text: col.string() },
  changeFeed: false,
});
const migrations: Migration[] = [
  ...kernelMigrations,
  { id: 'test/cache-notes', createTables: [notes, others, marks, log] },
];

const open: { driver: StorageDriver }[] = [];
const databases: TestDatabase[] = [];
afterEach(async () => {
  for (const { driver } of open.splice(0)) await driver.close();
  for (const database of databases.splice(0)) await database.drop();
});

async function database(
  kind: 'sqlite' | 'postgres' | 'mysql',
): Promise<{ first: StorageDriver; second: () => Promise<StorageDriver>; db: TestDatabase }> {
  const db = await createTestDatabase(kind);
  databases.push(db);
  const connect = async () => {
    const driver = await createDriver(db.config);
    open.push({ driver });
    return driver;
  };
  const first = await connect();
  await runMigrations(first, migrations);
  return { first, second: connect, db };
}

/** Polls until `check` holds (a notification is on its way), at most 5 s. */
const notified = (check: () => Promise<boolean>) =>
  eventually(check, 5000, 'the change notification');

/** A stamp as a cache lookup sees it: after the proof that it includes every earlier commit. */
async function heard(driver: StorageDriver, tables: string[]): Promise<number | null> {
  return (await driver.changes!.caughtUp()) ? driver.changes!.stamp(tables) : null;
}

/** Waits for the feed to vouch (PostgreSQL connects its listener on the first ask). */
async function ready(driver: StorageDriver): Promise<number> {
  await notified(async () => (await driver.changes!.stamp([notes.name])) !== null);
  return (await driver.changes!.stamp([notes.name]))!;
}

const kinds = (['sqlite', 'postgres'] as const).filter(driverAvailable);

for (const kind of kinds) {
  describe(`change stamps (${kind})`, () => {
    it("moves a table's stamp on this process's insert, update and delete, and leaves other tables' alone", async () => {
      const { first } = await database(kind);
      const store = first.forTenant('__default__');
      let before = await ready(first);
      const otherBefore = await first.changes!.stamp([others.name]);
      for (const write of [
        () => store.table(notes).insert({ id: 'n1', text: 'a' }),
        () => store.table(notes).update('n1', { text: 'b' }),
        () => store.table(notes).delete('n1'),
      ]) {
        await write();
        const after = (await first.changes!.stamp([notes.name]))!;
        expect(after).not.toBe(before);
        before = after;
      }
      expect(await first.changes!.stamp([others.name])).toBe(otherBefore);
    });

    it('moves the stamp when a transaction that wrote fails, and only once it has ended', async () => {
      const { first } = await database(kind);
      const store = first.forTenant('__default__');
      const before = await ready(first);
      let inside: number | null = null;
      await expect(
        store.transaction(async (tx) => {
          await tx.table(notes).insert({ id: 'n2', text: 'x' });
          inside = await first.changes!.stamp([notes.name]);
          throw new Error('give up');
        }),
      ).rejects.toThrow('give up');
      expect(inside).toBe(before);
      expect(await first.changes!.stamp([notes.name])).not.toBe(before);
    });

    it("moves the stamps when another process's connection commits", async () => {
      const { first, second } = await database(kind);
      const other = await second();
      const before = await ready(first);
      await other
        .forTenant('__default__')
        .table(notes)
        .insert({ id: 'n3', text: 'from elsewhere' });
      await notified(async () => (await heard(first, [notes.name])) !== before);
    });

    it('moves no stamp when a table outside the change feed is written, here or in another process', async () => {
      const { first, second } = await database(kind);
      const store = first.forTenant('__default__');
      await ready(first);
      const before = await heard(first, [log.name]);
      await store.table(log).insert({ id: 'l1', text: 'a' });
      await store.transaction((tx) => tx.table(log).insert({ id: 'l2', text: 'b' }));
      expect(await heard(first, [log.name])).toBe(before);
      // SQLite hears another process only as "something changed" (data_version), so only
      // PostgreSQL can tell which table another process wrote.
      if (kind !== 'postgres') return;
      const other = (await second()).forTenant('__default__');
      const notesBefore = await heard(first, [notes.name]);
      await other.table(log).insert({ id: 'l3', text: 'elsewhere' });
      // Notifications arrive in commit order: once the later write to notes is heard, a
      // notification of the log's write would have been too.
      await other.table(notes).insert({ id: 'n9', text: 'after the log' });
      await notified(async () => (await heard(first, [notes.name])) !== notesBefore);
      expect(await heard(first, [log.name])).toBe(before);
    });

    it('keeps the stamp when only an untracked column changes, here or in another process', async () => {
      const { first, second } = await database(kind);
      const other = (await second()).forTenant('__default__');
      const store = first.forTenant('__default__');
      await ready(first);
      /**
       * Waits until every notification of what was committed so far has arrived: another
       * process's tracked write, committed after them, is heard after them (SQLite: at once).
       */
      let barriers = 0;
      const settle = async () => {
        const seen = await heard(first, [others.name]);
        await other.table(others).insert({ id: `barrier-${++barriers}`, text: 'barrier' });
        await notified(async () => (await heard(first, [others.name])) !== seen);
      };
      await store.table(marks).insert({ id: 'm1', text: 'a', seen: 0 });
      await settle();
      const before = await heard(first, [marks.name]);
      await store.table(marks).update('m1', { seen: 1 });
      await store.table(marks).updateWhere({ id: 'm1' }, { seen: 2 });
      expect(await first.changes!.stamp([marks.name])).toBe(before);
      await other.table(marks).update('m1', { seen: 3 });
      await settle();
      if (kind === 'postgres') expect(await heard(first, [marks.name])).toBe(before);
      // SQLite tells only that another process committed, not what: there, any commit moves every stamp.
      // A tracked column moves it.
      await store.table(marks).update('m1', { text: 'b', seen: 4 });
      expect(await first.changes!.stamp([marks.name])).not.toBe(before);
    });

    it('serves a kept value until its table changes in another process, then loads afresh', async () => {
      const { first, second } = await database(kind);
      const other = await second();
      await ready(first);
      const cache = createReadCache(() => 1024 * 1024);
      let loads = 0;
      const store = first.forTenant('__default__');
      const read = () =>
        cache.read(
          store,
          'notes',
          [notes],
          async () => {
            loads++;
            return (await first.forTenant('__default__').table(notes).find()).length;
          },
          () => 8,
        );
      expect(await read()).toBe(0);
      expect(await read()).toBe(0);
      expect(loads).toBe(1);
      const stamp = await heard(first, [notes.name]);
      await other.forTenant('__default__').table(notes).insert({ id: 'n4', text: 'new' });
      await notified(async () => (await heard(first, [notes.name])) !== stamp);
      expect(await read()).toBe(1);
      expect(loads).toBe(2);
    });
  });
}

/**
 * A migrated PostgreSQL driver on a new database whose connections pass through a proxy that can
 * freeze its LISTEN connection, once its listener is proven.
 */
async function behindListenerProxy() {
  const db = await createTestDatabase('postgres');
  databases.push(db);
  const config = db.config as PostgresDbConfig;
  const proxy = await startListenerProxy(config.host, config.port);
  let driver: StorageDriver | undefined;
  try {
    driver = await createDriver({ ...config, host: '127.0.0.1', port: proxy.port });
    await runMigrations(driver, migrations);
    await ready(driver);
    return { driver, proxy };
  } catch (error) {
    await driver?.close();
    await proxy.close();
    throw error;
  }
}

describe.skipIf(!driverAvailable('postgres'))('change stamps (postgres listener)', () => {
  it('stands aside while the LISTEN connection is gone, and afterwards holds nothing from before', async () => {
    const { first } = await database('postgres');
    const before = await ready(first);
    // Ends the listener's session from the server side, as a restart or a proxy would.
    const { default: pg } = await import('pg');
    const config = databases.at(-1)!.config as {
      host: string;
      port: number;
      user: string;
      password: string;
      database: string;
    };
    const client = new pg.Client({
      host: config.host,
      port: config.port,
      user: config.user,
      password: config.password,
      database: config.database,
    });
    await client.connect();
    try {
      const killed = await client.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'workspace-hub changes' AND datname = $1`,
        [config.database],
      );
      expect(killed.rowCount).toBeGreaterThan(0);
    } finally {
      await client.end();
    }
    await notified(async () => (await heard(first, [notes.name])) === null);
    await notified(async () => (await heard(first, [notes.name])) !== null);
    expect(await first.changes!.stamp([notes.name])).not.toBe(before);
  });

  it('ends a LISTEN connection that stops answering, sends only a few fences into it meanwhile, and hears again on a new one', async () => {
    const { driver, proxy } = await behindListenerProxy();
    open.push({ driver });
    try {
      expect(await heard(driver, [notes.name])).not.toBeNull();
      expect(proxy.freezeListeners()).toBe(1);
      // Lookups keep asking for proofs, a batch every few milliseconds, as under load; none waits
      // for its answer before the next asks.
      let asked = 0;
      for (const until = Date.now() + 3000; Date.now() < until; asked++) {
        void driver.changes!.caughtUp();
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      // The silent connection is ended by the hub, not left open with fences queued on it ...
      await eventually(async () => proxy.frozenOpen() === 0, 5000, 'the frozen listener closed');
      // ... which held at most 4 empty queries (6 bytes each) unanswered, not one per batch.
      expect(asked).toBeGreaterThan(200);
      expect(proxy.frozenBytes()).toBeLessThanOrEqual(6 * 4);
      // A new listening connection (not frozen: the proxy passes later ones) proves the stamps again.
      await notified(async () => (await heard(driver, [notes.name])) !== null);
    } finally {
      await proxy.close();
    }
  });

  it('closes at once while fences are unanswered on a silent LISTEN connection', async () => {
    // Closed by the test itself.
    const { driver, proxy } = await behindListenerProxy();
    try {
      expect(proxy.freezeListeners()).toBe(1);
      void driver.changes!.caughtUp();
      await eventually(async () => proxy.frozenBytes() > 0, 2000, 'a fence sent');
      const closing = driver.close();
      // Ended at once, not left waiting for answers that cannot come (pg's end() in pipeline mode
      // would wait for them until the 2 s query timeout ends the connection).
      await eventually(async () => proxy.frozenOpen() === 0, 500, 'the frozen listener closed');
      await closing;
    } finally {
      await proxy.close();
    }
  });
});

for (const kind of (['postgres', 'mysql'] as const).filter(driverAvailable))
  describe(`change signals (${kind})`, () => {
    it('installs the change trigger on a fed table and none on a table outside the feed', async () => {
      const { db } = await database(kind);
      const triggers = async (table: string) =>
        kind === 'postgres'
          ? (
              await db.query(
                `SELECT tgname AS name FROM pg_trigger WHERE tgrelid = '${table}'::regclass AND NOT tgisinternal`,
              )
            ).map((row) => row.name)
          : (
              await db.query(
                `SELECT trigger_name AS name FROM information_schema.triggers
                  WHERE event_object_schema = DATABASE() AND event_object_table = ?`,
                [table],
              )
            ).map((row) => row.name ?? row.NAME);
      expect((await triggers(notes.name)).length).toBe(kind === 'postgres' ? 1 : 3);
      expect(await triggers(log.name)).toEqual([]);
    });
  });

describe.skipIf(!driverAvailable('mysql'))(
  'the read cache before the change sequence (mysql)',
  () => {
    it('loads every read afresh until kernel/0004-change-sequence is recorded', async () => {
      const { first } = await database('mysql');
      expect(await first.changes!.stamp([notes.name])).toBeNull();
      const cache = createReadCache(() => 1024 * 1024);
      let loads = 0;
      const store = first.forTenant('__default__');
      const count = async () => ++loads;
      for (let i = 0; i < 3; i++) await cache.read(store, 'k', [notes], count, () => 8);
      expect(loads).toBe(3);
    });
  },
);

describe('the read cache on its own', () => {
  /** A store whose stamp the test moves by hand (the cache reads nothing else of it). */
  const feed = () => {
    let stamp = 1;
    return {
      store: {
        changes: { stamp: () => stamp, caughtUp: () => true },
        context: NO_CONTEXT,
      } as unknown as Store,
      move: () => stamp++,
    };
  };

  it("shares one request's proof among its lookups, and asks anew for any other store", async () => {
    let asked = 0;
    const changes = { stamp: () => 1, caughtUp: async () => (asked++, true) };
    const cache = createReadCache(() => 1 << 20);
    const value = async () => 'v';
    const plain = { changes, context: NO_CONTEXT } as unknown as Store;
    await cache.read(plain, 'k', [notes], value, () => 8); // a miss: no proof needed
    for (let i = 0; i < 3; i++) await cache.read(plain, 'k', [notes], value, () => 8);
    expect(asked).toBe(3);
    const request = { changes, context: requestContext(null) } as unknown as Store;
    for (let i = 0; i < 3; i++) await cache.read(request, 'k', [notes], value, () => 8);
    expect(asked).toBe(4);
    const next = { changes, context: requestContext(null) } as unknown as Store;
    await cache.read(next, 'k', [notes], value, () => 8);
    expect(asked).toBe(5);
  });

  it('drops the least recently used entries to stay within its byte budget, and keeps no value over a quarter of it', async () => {
    const { store } = feed();
    const cache = createReadCache(() => 4000);
    const value = (n: number) => async () => n;
    await cache.read(store, 'a', [notes], value(1), () => 700);
    await cache.read(store, 'b', [notes], value(2), () => 700);
    await cache.read(store, 'a', [notes], value(1), () => 700); // a is now the most recent
    await cache.read(store, 'c', [notes], value(3), () => 700);
    await cache.read(store, 'd', [notes], value(4), () => 700);
    await cache.read(store, 'e', [notes], value(5), () => 700);
    expect(cache.stats().bytes).toBeLessThanOrEqual(4000);
    /** Reads `key` (loading `n`, of `bytes`): the value, and whether the loader ran (a miss). */
    const loads = async (key: string, n: number, bytes = 700) => {
      let loaded = false;
      const read = async () => ((loaded = true), n);
      const value = await cache.read(store, key, [notes], read, () => bytes);
      return { loaded, value };
    };
    expect(await loads('b', 2)).toEqual({ loaded: true, value: 2 });
    expect(await loads('e', 5)).toEqual({ loaded: false, value: 5 });
    await cache.read(store, 'huge', [notes], value(6), () => 1500);
    expect(await loads('huge', 7, 1500)).toEqual({ loaded: true, value: 7 });
  });

  it('shares one load among concurrent misses of a key, and reloads once the stamp moves', async () => {
    const { store, move } = feed();
    const cache = createReadCache(() => 1 << 20);
    let loads = 0;
    const load = async () => {
      loads++;
      await new Promise((resolve) => setTimeout(resolve, 20));
      return loads;
    };
    const results = await Promise.all(
      Array.from({ length: 10 }, () => cache.read(store, 'k', [notes], load, () => 8)),
    );
    expect(results).toEqual(Array(10).fill(1));
    expect(loads).toBe(1);
    move();
    expect(await cache.read(store, 'k', [notes], load, () => 8)).toBe(2);
  });

  it('keeps nothing while the budget is 0, and does not keep a miss the size function declines', async () => {
    const { store } = feed();
    let budget = 0;
    const cache = createReadCache(() => budget);
    let loads = 0;
    const count = async () => ++loads;
    await cache.read(store, 'k', [notes], count, () => 8);
    await cache.read(store, 'k', [notes], count, () => 8);
    expect(loads).toBe(2);
    budget = 1 << 20;
    await cache.read(
      store,
      'miss',
      [notes],
      async () => null,
      () => null,
    );
    expect(cache.stats().entries).toBe(0);
  });
});
