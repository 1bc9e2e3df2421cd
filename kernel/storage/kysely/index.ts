/** Opening a Kysely-backed driver for a `db` config section. */
import type { StorageDriver } from '../contract.ts';
import { PGLITE_REMOVED, type DbConfig } from '../config.ts';
import { openMysql, openPostgres } from './connect.ts';
import { createSqlDriver } from './driver.ts';
import { openSqlite } from './sqlite.ts';

export async function createKyselyDriver(config: DbConfig): Promise<StorageDriver> {
  switch (config.driver) {
    case 'sqlite':
      return createSqlDriver(await openSqlite(config));
    case 'postgres':
      return createSqlDriver(await openPostgres(config));
    case 'mysql':
      return createSqlDriver(await openMysql(config));
    case 'pglite':
      // Refused by config validation already; kept for callers that build a config by hand.
      throw new Error(`db.driver: ${PGLITE_REMOVED}`);
    case 'firestore':
      throw new Error('The Firestore driver is not opened here; use createDriver.');
  }
}
