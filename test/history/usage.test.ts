/**
 * The history budget's counters (plugins/entities/history/usage.ts): a check inside a transaction
 * never waits for the ledger's own write (on SQLite that write needs the one writer connection the
 * transaction holds), and a change whose transaction fails leaves nothing counted — the counters
 * always end equal to the sizes of the revisions kept.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT_ID } from '../../kernel/identity/tenants.ts';
import { StorageError, type StorageDriver, type Store } from '../../kernel/storage/contract.ts';
import type { StoreContext } from '../../kernel/storage/context.ts';
import { historyUsageTable, revisionsTable } from '../../plugins/entities/history/tables.ts';
import { createUsageLedger } from '../../plugins/entities/history/usage.ts';
import { eventually } from '../helpers/async.ts';
import { allDrivers } from '../helpers/drivers.ts';
import { EVERY_ENTITY, fixtures } from '../helpers/fixtures.ts';
import {
  startTestHub,
  uniqueName,
  useTestDriver,
  useTestHub,
  type TestHub,
} from '../helpers/hub.ts';

describe.each(allDrivers())('the history usage ledger on %s', (driver) => {
  const db = useTestHub(driver);

  it("answers a check inside a transaction while the ledger's write waits for that transaction", async () => {
    const store = db.store();
    const ledger = createUsageLedger(() => store);
    const user = uniqueName('u');
    ledger.add(store, user, 100);
    const inside = await store.transaction(async (tx) => {
      // The write is begun here, so on SQLite it queues for the writer connection tx holds.
      const written = ledger.flush();
      const usage = await ledger.usage(tx, user);
      return { usage, written };
    });
    await inside.written;
    expect(inside.usage.user).toBe(100);
    // Written once: a fresh ledger reads it from the counters.
    const fresh = createUsageLedger(() => store);
    expect((await fresh.usage(store, user)).user).toBe(100);
  });
});

/**
 * `driver`, except that deleting revisions fails (as an outage) while `failing.on` is set: the
 * per-record limit's removal then fails the transaction of an edit after its revision was written.
 */
function failingRevisionRemoval(driver: StorageDriver, failing: { on: boolean }): StorageDriver {
  const wrap = (store: Store): Store =>
    new Proxy(store, {
      get(target, prop) {
        if (prop === 'transaction')
          return (fn: (tx: Store) => Promise<unknown>) => target.transaction((tx) => fn(wrap(tx)));
        if (prop === 'table')
          return (table: Parameters<Store['table']>[0]) => {
            const api = target.table(table);
            if (table !== revisionsTable) return api;
            return new Proxy(api, {
              get(handle, key) {
                const value = Reflect.get(handle, key);
                if (key !== 'deleteWhere' || !failing.on)
                  return typeof value === 'function' ? value.bind(handle) : value;
                return async () => {
                  throw new StorageError('unavailable', 'Revisions cannot be removed (test)');
                };
              },
            });
          };
        const value = Reflect.get(target, prop);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  return new Proxy(driver, {
    get(target, prop) {
      if (prop === 'forTenant')
        return (tenantId: string, context?: StoreContext) =>
          wrap(target.forTenant(tenantId, context));
      const value = Reflect.get(target, prop);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

describe.each(allDrivers())('history usage under failed changes on %s', (kind) => {
  const db = useTestDriver(kind);
  const failing = { on: false };
  let hub: TestHub | undefined;
  beforeAll(async () => {
    hub = await startTestHub({
      driver: failingRevisionRemoval(db.driver, failing),
      config: {
        history: {
          keepDays: 0,
          pruneIntervalSeconds: 86_400,
          maxRevisionsPerRecord: 3,
          maxBytesPerUser: 1024 * 1024,
        },
      },
    });
  });
  afterAll(() => hub?.close());

  it('counts no bytes of an edit whose transaction failed: the counters end equal to the revisions kept', async () => {
    const t = hub!;
    const h = fixtures(t);
    const author = await h.user(EVERY_ENTITY);
    const col = await h.collection();
    const other = await h.collection();
    const doc = await h.document(col.id, {}, author.token);
    const save = (tag: string, collectionId = col.id) =>
      t.request('PUT', `/documents/${doc.id}`, {
        token: author.token,
        body: { collectionId, content: tag.padEnd(3000, 'x') },
      });
    for (let i = 0; i < 3; i++) expect((await save(`ok${i}`)).status).toBe(200);
    // At the limit: the edit in place and a move both write a revision, then fail removing one.
    failing.on = true;
    expect((await save('failed')).status).toBe(503);
    expect((await save('failed move', other.id)).status).toBe(503);
    failing.on = false;
    expect((await save('after')).status).toBe(200);
    const store = db.driver.forTenant(DEFAULT_TENANT_ID);
    const kept = await store.table(revisionsTable).find({ where: { actorId: author.id } });
    expect(kept.map((row) => row.version).sort()).toEqual([3, 4, 5]);
    const expected = kept.reduce((sum, row) => sum + row.size, 0);
    // The ledger writes what committed to the counters within a second.
    const counted = async () =>
      (await store.table(historyUsageTable).find({})).reduce(
        (sum, row) => (row.id.startsWith(`u:${author.id}:`) ? sum + row.bytes : sum),
        0,
      );
    await eventually(async () => (await counted()) === expected, 10_000, 'the counters');
    expect(await counted()).toBe(expected);
  });
});
