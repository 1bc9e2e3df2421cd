/**
 * The `sql` storage driver: the contract on one Kysely database, plus versioned migrations recorded
 * in `hub_migrations` and guarded by a cross-process lock, which the dialect takes (PostgreSQL
 * advisory lock, MySQL GET_LOCK, SQLite's writer lock taken by BEGIN IMMEDIATE).
 */
import { sql } from 'kysely';
import type { Migration, StorageDriver } from '../contract.ts';
import { ChangeStamps, noChangeFeed, type ChangeFeed } from '../changes.ts';
import type { Executor, OthersWatch, SqlDialect } from './dialect.ts';
import {
  addColumns,
  createIndexes,
  createTable,
  dropTable,
  ensureMigrationsTable,
  installChangeTriggers,
  MIGRATIONS_TABLE,
} from './schema.ts';
import { mapError } from './errors.ts';
import { createSqlStore } from './store.ts';
import { withoutQueryTimeout } from './bounded-pool.ts';

export function createSqlDriver(dialect: SqlDialect): StorageDriver {
  const { db } = dialect;
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
    await dialect.retryBusy(() => ensureMigrationsTable(db, dialect));
    migrationsTableReady = true;
  };

  /** The schema operations of `migration`, as idempotent steps (see schema.ts). */
  async function applySchema(on: Executor, migration: Migration): Promise<void> {
    for (const table of migration.dropTables ?? []) await dropTable(on, dialect, table);
    for (const table of migration.createTables ?? []) await createTable(on, dialect, table);
    for (const { table, columns } of migration.addColumns ?? [])
      await addColumns(on, dialect, table, columns);
    for (const table of migration.addIndexes ?? []) await createIndexes(on, dialect, table);
    if (migration.changeFeed) await installChangeTriggers(on, dialect, migration.changeFeed);
  }

  /** The dialect holds the cross-process lock and the transactions (dialects/). */
  async function apply(migration: Migration): Promise<void> {
    await dialect.migrate({
      async done(on) {
        const found = await sql`SELECT 1 FROM hub_migrations WHERE id = ${migration.id}`.execute(
          on,
        );
        return found.rows.length > 0;
      },
      schema: (on) => applySchema(on, migration),
      async data(trx) {
        if (migration.run) await migration.run(createSqlStore(dialect, trx, null, true));
        await trx
          .insertInto(MIGRATIONS_TABLE)
          .values({ id: migration.id, applied_at: new Date() })
          .execute();
      },
    });
    stamps.bumpAll();
  }

  return {
    kind: dialect.flavor,
    migratesOnStart: dialect.migratesOnStart,
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
        await withoutQueryTimeout(() => apply(migration));
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
    ...(dialect.backup ? { backup: (out: string) => dialect.backup!(out) } : {}),
    poolStats: () => dialect.poolStats?.() ?? null,
    ...(dialect.circuit ? { circuit: dialect.circuit } : {}),
    async close() {
      closed = true;
      await others?.close();
      await dialect.close();
    },
  };
}
