/**
 * PostgreSQL: transactional DDL under an advisory lock, a statement trigger that NOTIFYs each
 * table's writes (pg-listen.ts hears them), savepoints around inserts that may fail inside a
 * transaction, and writes in one statement where the others take several (pg-writes.ts).
 */
import { sql } from 'kysely';
import type { Table } from '../../table.ts';
import { trackedColumns } from '../codec.ts';
import type { Executor, SqlConnection, SqlDialect } from '../dialect.ts';
import { CHANGES_CHANNEL } from '../pg-listen.ts';
import { insertAllAtOnce, updateVersionedAtOnce } from '../pg-writes.ts';
import {
  common,
  createIndexIfNotExists,
  inInformationSchema,
  migrateInTransaction,
  updateReturning,
} from './shared.ts';

/** Any fixed number: every workspace-hub process agrees on it. */
const MIGRATION_LOCK_KEY = 72_716_031;
const CHANGE_TRIGGER = 'hub_changes';

/**
 * After each statement that writes the table (whoever runs it: a hub, the CLI, psql), NOTIFY its
 * name. Delivered at commit only, once per table and transaction; see ../../changes.ts.
 */
async function installChangeTrigger(db: Executor, table: Table): Promise<void> {
  await sql
    .raw(
      `CREATE OR REPLACE FUNCTION hub_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$ ` +
        `BEGIN PERFORM pg_notify('${CHANGES_CHANNEL}', TG_TABLE_NAME); RETURN NULL; END $$`,
    )
    .execute(db);
  // An UPDATE that sets only bookkeeping columns (`untracked`) notifies no one.
  const update =
    table.untracked.length > 0 ? `UPDATE OF ${trackedColumns(table).join(', ')}` : 'UPDATE';
  await sql.raw(`DROP TRIGGER IF EXISTS ${CHANGE_TRIGGER} ON ${table.name}`).execute(db);
  await sql
    .raw(
      `CREATE TRIGGER ${CHANGE_TRIGGER} AFTER INSERT OR ${update} OR DELETE OR TRUNCATE ON ${table.name} ` +
        'FOR EACH STATEMENT EXECUTE FUNCTION hub_notify_change()',
    )
    .execute(db);
}

export function postgresDialect(connection: SqlConnection): SqlDialect {
  return {
    ...connection,
    ...common,
    flavor: 'postgres',
    migratesOnStart: false,
    columnType(spec) {
      switch (spec.kind) {
        case 'id':
        case 'string':
          return `VARCHAR(${spec.maxLength ?? 255})`;
        case 'text':
        case 'json':
          return 'TEXT';
        case 'int':
          return 'BIGINT';
        case 'bool':
          return 'BOOLEAN';
        case 'timestamp':
          return 'TIMESTAMPTZ(3)';
      }
    },
    addedColumnDefault(spec) {
      switch (spec.kind) {
        case 'int':
          return '0';
        case 'bool':
          return 'FALSE';
        case 'timestamp':
          return 'CURRENT_TIMESTAMP';
        case 'json':
          return "'null'";
        default:
          return "''";
      }
    },
    tableOptions: '',
    async exists(db, kind, table, name) {
      if (kind !== 'index')
        return inInformationSchema(db, sql`current_schema()`, kind, table, name);
      const result =
        await sql`SELECT 1 FROM pg_indexes WHERE schemaname = current_schema() AND tablename = ${table} AND indexname = ${name}`.execute(
          db,
        );
      return result.rows.length > 0;
    },
    createIndex: createIndexIfNotExists,
    async changeSignal(db, table) {
      if (table.changeFeed) await installChangeTrigger(db, table);
      else await sql.raw(`DROP TRIGGER IF EXISTS ${CHANGE_TRIGGER} ON ${table.name}`).execute(db);
    },
    migrate: (work) =>
      migrateInTransaction(connection, work, async (trx) => {
        // A migration may take longer than a request's statement is allowed to (db.queryTimeoutMillis).
        await sql`SET LOCAL statement_timeout = 0`.execute(trx);
        await sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`.execute(trx);
      }),
    insertAllAtOnce,
    /**
     * A failed statement aborts the whole transaction, so it gets a savepoint to roll back to and
     * the caller can go on (update instead, say); MySQL and SQLite only fail the statement.
     */
    async recoverable(trx, run) {
      await sql`SAVEPOINT hub_insert`.execute(trx);
      try {
        const out = await run();
        await sql`RELEASE SAVEPOINT hub_insert`.execute(trx);
        return out;
      } catch (error) {
        await sql`ROLLBACK TO SAVEPOINT hub_insert`.execute(trx);
        throw error;
      }
    },
    // One round trip: the changed row comes back with the UPDATE.
    updateRow: (update) => updateReturning(update),
    // One statement: the UPDATE and the copy's INSERT (pg-writes.ts), no transaction to open.
    updateVersioned: (update, copy) => updateVersionedAtOnce(update, copy),
  };
}
