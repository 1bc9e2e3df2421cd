/**
 * The `sql` storage driver: the contract on one Kysely database, plus versioned migrations recorded
 * in `hub_migrations` and guarded by a cross-process lock (PostgreSQL advisory lock, MySQL GET_LOCK,
 * SQLite's writer lock taken by BEGIN IMMEDIATE).
 */
import { sql } from 'kysely';
import type { Migration, StorageDriver } from '../contract.ts';
import { ChangeStamps, noChangeFeed, type ChangeFeed } from '../changes.ts';
import { type OthersWatch, type SqlDialect } from './dialect.ts';
import {
  addColumns,
  createIndexes,
  createTable,
  dropTable,
  ensureMigrationsTable,
  installChangeTriggers,
  MIGRATIONS_TABLE,
} from './schema.ts';
import { backupSqlite } from './sqlite.ts';
import { mapError } from './errors.ts';
import { retryMigration } from './retry.ts';
import { createSqlStore, durably } from './store.ts';
import { withoutQueryTimeout } from './bounded-pool.ts';

/** Any fixed number: every workspace-hub process agrees on it. */
const MIGRATION_LOCK_KEY = 72_716_031;

export function createSqlDriver(dialect: SqlDialect): StorageDriver {
  const { db, flavor } = dialect;
  let migrationsTableReady = false;
  const stamps = new ChangeStamps();
  const changed = (tables: Iterable<string>) => stamps.bump(tables);
  // Watching other processes starts with the first cache that asks, so a CLI command never does.
  let others: OthersWatch | undefined;
  let closed = false;
  const watch = () => (closed ? undefined : (others ??= dialect.watchOthers!(stamps)));
  const changes: ChangeFeed = dialect.watchOthers
    ? {
        stamp: (tables) => (watch()?.hearing() ? stamps.stamp(tables) : null),
        caughtUp: (arrival) => watch()?.current(arrival) ?? false,
      }
    : noChangeFeed();

  const ensureTable = async () => {
    if (migrationsTableReady) return;
    await retryBusy(() => ensureMigrationsTable(db, flavor));
    migrationsTableReady = true;
  };

  /** SQLite: another process (a server starting, a CLI command) may hold the writer lock a while. */
  const retryBusy = <T>(run: () => Promise<T>) => retryMigration(flavor, run);

  // PostgreSQL and SQLite run DDL inside a transaction, so a migration lands whole or not at all.
  async function applyTransactional(migration: Migration): Promise<void> {
    await durably(dialect, db.transaction(), async (trx) => {
      if (flavor === 'postgres') {
        // A migration may take longer than a request's statement is allowed to (db.queryTimeoutMillis).
        await sql`SET LOCAL statement_timeout = 0`.execute(trx);
        await sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`.execute(trx);
      }
      const done = await sql`SELECT 1 FROM hub_migrations WHERE id = ${migration.id}`.execute(trx);
      if (done.rows.length > 0) return;
      for (const table of migration.dropTables ?? []) await dropTable(trx, flavor, table);
      for (const table of migration.createTables ?? []) await createTable(trx, flavor, table);
      for (const { table, columns } of migration.addColumns ?? [])
        await addColumns(trx, flavor, table, columns);
      for (const table of migration.addIndexes ?? []) await createIndexes(trx, flavor, table);
      if (migration.changeFeed && flavor === 'postgres')
        await installChangeTriggers(trx, flavor, migration.changeFeed);
      if (migration.run) await migration.run(createSqlStore(dialect, trx, null, true));
      await trx
        .insertInto(MIGRATIONS_TABLE)
        .values({ id: migration.id, applied_at: new Date() })
        .execute();
    });
    stamps.bumpAll();
  }

  // MySQL commits DDL implicitly, so each schema step is idempotent and only the data step and the
  // record share a transaction; a named lock keeps two processes from interleaving.
  async function applyMysql(migration: Migration): Promise<void> {
    await db.connection().execute(async (conn) => {
      const got = await sql<{
        ok: number;
      }>`SELECT GET_LOCK('workspace_hub_migrate', 60) AS ok`.execute(conn);
      if (Number(got.rows[0]?.ok) !== 1)
        throw new Error('Timed out waiting for another process to finish migrating');
      try {
        const done = await sql`SELECT 1 FROM hub_migrations WHERE id = ${migration.id}`.execute(
          conn,
        );
        if (done.rows.length > 0) return;
        for (const table of migration.dropTables ?? []) await dropTable(conn, flavor, table);
        for (const table of migration.createTables ?? []) await createTable(conn, flavor, table);
        for (const { table, columns } of migration.addColumns ?? [])
          await addColumns(conn, flavor, table, columns);
        for (const table of migration.addIndexes ?? []) await createIndexes(conn, flavor, table);
        if (migration.changeFeed) await installChangeTriggers(conn, flavor, migration.changeFeed);
        await conn.transaction().execute(async (trx) => {
          if (migration.run) await migration.run(createSqlStore(dialect, trx, null, true));
          await trx
            .insertInto(MIGRATIONS_TABLE)
            .values({ id: migration.id, applied_at: new Date() })
            .execute();
        });
        stamps.bumpAll();
      } finally {
        await sql`SELECT RELEASE_LOCK('workspace_hub_migrate')`.execute(conn);
      }
    });
  }

  return {
    kind: dialect.kind,
    forTenant: (tenantId, context) =>
      createSqlStore(dialect, db, tenantId, false, changed, changes, context),
    unscoped: () => createSqlStore(dialect, db, null, false, changed, changes),
    changes,
    async appliedMigrations() {
      try {
        await ensureTable();
        const rows = await (dialect.readDb ?? db)
          .selectFrom(MIGRATIONS_TABLE)
          .select(['id', 'applied_at'])
          .orderBy('applied_at')
          .orderBy('id')
          .execute();
        return rows.map((row) => String(row.id));
      } catch (error) {
        return mapError(error);
      }
    },
    async applyMigration(migration) {
      await ensureTable();
      try {
        await withoutQueryTimeout(() =>
          flavor === 'mysql'
            ? applyMysql(migration)
            : retryBusy(() => applyTransactional(migration)),
        );
      } catch (error) {
        return mapError(error);
      }
    },
    async ping() {
      try {
        await sql`SELECT 1`.execute(dialect.readDb ?? db);
      } catch (error) {
        mapError(error);
      }
    },
    ...(flavor === 'sqlite' && dialect.path
      ? { backup: (out: string) => backupSqlite(dialect, out) }
      : {}),
    poolStats: () => dialect.poolStats?.() ?? null,
    ...(dialect.circuit ? { circuit: dialect.circuit } : {}),
    async close() {
      closed = true;
      await others?.close();
      await dialect.close();
    },
  };
}
