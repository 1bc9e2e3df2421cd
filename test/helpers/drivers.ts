/** Storage drivers for suites that run on several databases, and a store that fails on purpose. */
import type { DbConfig } from '../../kernel/storage/config.ts';
import type { Store, StorageDriver } from '../../kernel/storage/contract.ts';
import { createDriver } from '../../kernel/storage/create-driver.ts';
import {
  createTestDatabase,
  driverAvailable,
  EMBEDDED_DRIVER,
  type DriverKind,
  type TestDatabase,
} from './databases.ts';

export { EMBEDDED_DRIVER, type DriverKind };

export interface TestDriver {
  kind: DriverKind;
  driver: StorageDriver;
  /** The database the driver was opened on, as {@link createTestDatabase} made it. */
  database: TestDatabase;
  cleanup(): Promise<void>;
}

/** The drivers the HTTP suites run on: SQLite, and PostgreSQL and Firestore when configured. */
export function httpDrivers(): DriverKind[] {
  return (['sqlite', 'postgres', 'firestore'] as const).filter(driverAvailable);
}

/** The drivers the console suites run on: SQLite, and PostgreSQL when configured. */
export function consoleDrivers(): DriverKind[] {
  return (['sqlite', 'postgres'] as const).filter(driverAvailable);
}

/** Every driver whose service is configured (SQLite always, Firestore through its emulator). */
export function allDrivers(): DriverKind[] {
  return (['sqlite', 'postgres', 'mysql', 'firestore'] as const).filter(driverAvailable);
}

/**
 * An empty database of that kind with a driver on it; `cleanup` closes and drops it. `connect` may
 * change the config the driver opens with (e.g. to go through a proxy, with shorter timeouts).
 */
export async function openTestDriver(
  kind: DriverKind,
  connect?: (config: DbConfig) => DbConfig | Promise<DbConfig>,
): Promise<TestDriver> {
  const database = await createTestDatabase(kind);
  const driver = await createDriver(connect ? await connect(database.config) : database.config);
  return {
    kind,
    driver,
    database,
    async cleanup() {
      await driver.close();
      await database.drop();
    },
  };
}

/**
 * `store`, except that the `failOn`-th `deleteWhere` call (counted across the store and every
 * transaction it opens) throws: shows whether earlier deletes of the same operation survive.
 */
export function failingDeletes(store: Store, failOn: number): Store {
  let calls = 0;
  const bind = (target: object, prop: string | symbol) => {
    const value = Reflect.get(target, prop);
    return typeof value === 'function' ? value.bind(target) : value;
  };
  const wrap = (inner: Store): Store =>
    new Proxy(inner, {
      get(target, prop) {
        if (prop === 'transaction')
          return (fn: (tx: Store) => Promise<unknown>) => target.transaction((tx) => fn(wrap(tx)));
        if (prop === 'table') {
          return (table: Parameters<Store['table']>[0]) =>
            new Proxy(target.table(table), {
              get(handle, key) {
                if (key !== 'deleteWhere') return bind(handle, key);
                return async (where: never) => {
                  calls += 1;
                  if (calls === failOn)
                    throw new Error(`deleteWhere call ${calls} failed on purpose`);
                  return handle.deleteWhere(where);
                };
              },
            });
        }
        return bind(target, prop);
      },
    });
  return wrap(store);
}
