/** Storage drivers for suites that run on several databases. */
import type { StorageDriver } from '../../kernel/storage/contract.ts';
import { createDriver } from '../../kernel/storage/create-driver.ts';
import { pgliteDialect } from '../../kernel/storage/kysely/connect.ts';
import { createSqlDriver } from '../../kernel/storage/kysely/driver.ts';
import { createTestDatabase, driverAvailable, openPgliteSnapshot, type DriverKind } from './databases.ts';

export type { DriverKind };

export interface TestDriver {
  kind: DriverKind;
  driver: StorageDriver;
  cleanup(): Promise<void>;
}

/** The drivers the HTTP suites run on: PGlite, and PostgreSQL and Firestore when configured. */
export function httpDrivers(): DriverKind[] {
  return (['pglite', 'postgres', 'firestore'] as const).filter(driverAvailable);
}

/** Every driver whose service is configured (Firestore through its emulator). */
export function allDrivers(): DriverKind[] {
  return (['pglite', 'postgres', 'mysql', 'firestore'] as const).filter(driverAvailable);
}

/** An empty database of that kind with a driver on it; `cleanup` closes and drops it. */
export async function openTestDriver(kind: DriverKind): Promise<TestDriver> {
  if (kind === 'pglite') {
    const driver = createSqlDriver(await pgliteDialect(await openPgliteSnapshot()));
    return { kind, driver, cleanup: () => driver.close() };
  }
  const database = await createTestDatabase(kind);
  const driver = await createDriver(database.config);
  return {
    kind,
    driver,
    async cleanup() {
      await driver.close();
      await database.drop();
    },
  };
}
