/** Opening a Kysely-backed driver for a `db` config section (lead's implementation). */
import type { StorageDriver } from '../contract.ts';
import type { DbConfig } from '../config.ts';
import { openMysql, openPglite, openPostgres } from './connect.ts';
import { createSqlDriver } from './driver.ts';

export async function createKyselyDriver(config: DbConfig): Promise<StorageDriver> {
  switch (config.driver) {
    case 'pglite':
      return createSqlDriver(await openPglite(config.dataDir));
    case 'postgres':
      return createSqlDriver(await openPostgres(config));
    case 'mysql':
      return createSqlDriver(await openMysql(config));
    case 'firestore':
      throw new Error('The Firestore driver is not available in this version yet; use pglite, postgres or mysql.');
  }
}
