/**
 * The `sql` storage driver: the contract on one Kysely database, plus versioned migrations recorded
 * in `hub_migrations` and guarded by a cross-process lock (PostgreSQL advisory lock, MySQL GET_LOCK).
 */
import { sql } from 'kysely';
import type { Migration, StorageDriver } from '../contract.ts';
import type { SqlDialect } from './dialect.ts';
import { addColumns, createIndexes, createTable, ensureMigrationsTable, MIGRATIONS_TABLE } from './schema.ts';
import { createSqlStore, mapError } from './store.ts';

/** Any fixed number: every workspace-hub process agrees on it. */
const MIGRATION_LOCK_KEY = 72_716_031;

export function createSqlDriver(dialect: SqlDialect): StorageDriver {
  const { db, flavor } = dialect;
  let migrationsTableReady = false;

  const ensureTable = async () => {
    if (migrationsTableReady) return;
    await ensureMigrationsTable(db, flavor);
    migrationsTableReady = true;
  };

  async function applyPostgres(migration: Migration): Promise<void> {
    await db.transaction().execute(async (trx) => {
      await sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`.execute(trx);
      const done = await sql`SELECT 1 FROM hub_migrations WHERE id = ${migration.id}`.execute(trx);
      if (done.rows.length > 0) return;
      for (const table of migration.createTables ?? []) await createTable(trx, flavor, table);
      for (const { table, columns } of migration.addColumns ?? []) await addColumns(trx, flavor, table, columns);
      for (const table of migration.addIndexes ?? []) await createIndexes(trx, flavor, table);
      if (migration.run) await migration.run(createSqlStore(dialect, trx, null, true));
      await trx.insertInto(MIGRATIONS_TABLE).values({ id: migration.id, applied_at: new Date() }).execute();
    });
  }

  // MySQL commits DDL implicitly, so each schema step is idempotent and only the data step and the
  // record share a transaction; a named lock keeps two processes from interleaving.
  async function applyMysql(migration: Migration): Promise<void> {
    await db.connection().execute(async (conn) => {
      const got = await sql<{ ok: number }>`SELECT GET_LOCK('workspace_hub_migrate', 60) AS ok`.execute(conn);
      if (Number(got.rows[0]?.ok) !== 1) throw new Error('Timed out waiting for another process to finish migrating');
      try {
        const done = await sql`SELECT 1 FROM hub_migrations WHERE id = ${migration.id}`.execute(conn);
        if (done.rows.length > 0) return;
        for (const table of migration.createTables ?? []) await createTable(conn, flavor, table);
        for (const { table, columns } of migration.addColumns ?? []) await addColumns(conn, flavor, table, columns);
        for (const table of migration.addIndexes ?? []) await createIndexes(conn, flavor, table);
        await conn.transaction().execute(async (trx) => {
          if (migration.run) await migration.run(createSqlStore(dialect, trx, null, true));
          await trx.insertInto(MIGRATIONS_TABLE).values({ id: migration.id, applied_at: new Date() }).execute();
        });
      } finally {
        await sql`SELECT RELEASE_LOCK('workspace_hub_migrate')`.execute(conn);
      }
    });
  }

  return {
    kind: dialect.kind,
    forTenant: (tenantId) => createSqlStore(dialect, db, tenantId, false),
    unscoped: () => createSqlStore(dialect, db, null, false),
    async appliedMigrations() {
      try {
        await ensureTable();
        const rows = await db.selectFrom(MIGRATIONS_TABLE).select(['id', 'applied_at']).orderBy('applied_at').orderBy('id').execute();
        return rows.map((row) => String(row.id));
      } catch (error) {
        return mapError(error);
      }
    },
    async applyMigration(migration) {
      await ensureTable();
      try {
        await (flavor === 'mysql' ? applyMysql(migration) : applyPostgres(migration));
      } catch (error) {
        return mapError(error);
      }
    },
    async ping() {
      try {
        await sql`SELECT 1`.execute(db);
      } catch (error) {
        mapError(error);
      }
    },
    poolStats: () => dialect.poolStats?.() ?? null,
    close: () => dialect.close(),
  };
}
