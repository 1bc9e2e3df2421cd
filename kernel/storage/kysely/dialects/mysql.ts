/**
 * MySQL/MariaDB: DDL commits implicitly, so a migration's schema steps are idempotent and a named
 * lock keeps two processes from interleaving them; row triggers count each table's writes
 * (change-counts.ts); no `CREATE INDEX IF NOT EXISTS`; and reads leave out an ORDER BY on a column
 * the filter pins.
 */
import { sql } from 'kysely';
import type { Where } from '../../contract.ts';
import { dropChangeCounters, installChangeCounters } from '../change-counts.ts';
import type { SqlConnection, SqlDialect } from '../dialect.ts';
import { common, inInformationSchema } from './shared.ts';

/** Whether `where` fixes `column` to one value (equality or null, not a range or a list). */
function pinned(where: Where<any> | undefined, column: string): boolean {
  const condition = where?.[column];
  if (condition === undefined) return false;
  return condition === null || typeof condition !== 'object' || condition instanceof Date;
}

export function mysqlDialect(connection: SqlConnection): SqlDialect {
  const dialect: SqlDialect = {
    ...connection,
    ...common,
    flavor: 'mysql',
    migratesOnStart: false,
    columnType(spec) {
      switch (spec.kind) {
        case 'id':
        case 'string':
          return `VARCHAR(${spec.maxLength ?? 255})`;
        case 'text':
        case 'json':
          return 'LONGTEXT';
        case 'int':
          return 'BIGINT';
        case 'bool':
          return 'TINYINT(1)';
        case 'timestamp':
          return 'DATETIME(3)';
      }
    },
    addedColumnDefault(spec) {
      switch (spec.kind) {
        case 'int':
        case 'bool':
          return '0';
        case 'timestamp':
          return 'CURRENT_TIMESTAMP(3)';
        case 'json':
          return "'null'";
        default:
          return "''";
      }
    },
    tableOptions: ' ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin',
    async exists(db, kind, table, name) {
      if (kind !== 'index') return inInformationSchema(db, sql`DATABASE()`, kind, table, name);
      const result =
        await sql`SELECT 1 FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = ${table} AND index_name = ${name}`.execute(
          db,
        );
      return result.rows.length > 0;
    },
    async createIndex(db, table, name, unique, columns) {
      if (await dialect.exists(db, 'index', table, name)) return;
      await sql
        .raw(`CREATE ${unique ? 'UNIQUE ' : ''}INDEX ${name} ON ${table} (${columns})`)
        .execute(db);
    },
    async changeSignal(db, table) {
      if (table.changeFeed) await installChangeCounters(db, table);
      else await dropChangeCounters(db, table);
    },
    // Only the data step and the record share a transaction; the lock is held on one connection.
    migrate: (work) =>
      connection.db.connection().execute(async (conn) => {
        const got = await sql<{
          ok: number;
        }>`SELECT GET_LOCK('workspace_hub_migrate', 60) AS ok`.execute(conn);
        if (Number(got.rows[0]?.ok) !== 1)
          throw new Error('Timed out waiting for another process to finish migrating');
        try {
          if (await work.done(conn)) return;
          await work.schema(conn);
          await conn.transaction().execute((trx) => work.data(trx));
        } finally {
          await sql`SELECT RELEASE_LOCK('workspace_hub_migrate')`.execute(conn);
        }
      }),
    // Ordering by a column the filter pins to one value (`x IS NULL`, say) makes MariaDB scan the
    // whole range and sort it; without it, the index is read backwards and stops at the limit.
    // PostgreSQL needs it kept for the opposite reason.
    ordersBy: (where, column) => !pinned(where, column),
  };
  return dialect;
}
