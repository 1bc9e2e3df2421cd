/** Opening a Kysely-backed driver for a `db` config section: the one place that picks the dialect. */
import type { StorageDriver } from '../contract.ts';
import { PGLITE_REMOVED, type DbConfig } from '../config.ts';
import { openMysql, openPostgres } from './connect.ts';
import { createSqlDriver } from './driver.ts';
import { mysqlDialect } from './dialects/mysql.ts';
import { postgresDialect } from './dialects/postgres.ts';
import { sqliteDialect } from './dialects/sqlite.ts';
import { openSqlite } from './sqlite.ts';

export async function createKyselyDriver(config: DbConfig): Promise<StorageDriver> {
  switch (config.driver) {
    case 'sqlite':
      return createSqlDriver(sqliteDialect(await openSqlite(config)));
    case 'postgres':
      return createSqlDriver(postgresDialect(await openPostgres(config)));
    case 'mysql':
      return createSqlDriver(mysqlDialect(await openMysql(config)));
    case 'pglite':
      // Refused by config validation already; kept for callers that build a config by hand.
      throw new Error(`db.driver: ${PGLITE_REMOVED}`);
    case 'firestore':
      throw new Error('The Firestore driver is not opened here; use createDriver.');
  }
}
