/** Storage drivers for suites that run on several databases. */
import type { StorageDriver } from '../../kernel/storage/contract.ts';
import { createDriver } from '../../kernel/storage/create-driver.ts';
import { createTestDatabase, driverAvailable, EMBEDDED_DRIVER, type DriverKind } from './databases.ts';

export { EMBEDDED_DRIVER, type DriverKind };

export interface TestDriver {
  kind: DriverKind;
  driver: StorageDriver;
  cleanup(): Promise<void>;
}

/** The drivers the HTTP suites run on: SQLite, and PostgreSQL and Firestore when configured. */
export function httpDrivers(): DriverKind[] {
  return (['sqlite', 'postgres', 'firestore'] as const).filter(driverAvailable);
}

/** Every driver whose service is configured (SQLite always, Firestore through its emulator). */
export function allDrivers(): DriverKind[] {
  return (['sqlite', 'postgres', 'mysql', 'firestore'] as const).filter(driverAvailable);
}

/** An empty database of that kind with a driver on it; `cleanup` closes and drops it. */
export async function openTestDriver(kind: DriverKind): Promise<TestDriver> {
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
