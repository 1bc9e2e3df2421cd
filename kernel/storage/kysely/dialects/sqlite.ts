/**
 * SQLite: one writer at a time, whose transactions hold the writer lock from their BEGIN
 * IMMEDIATE, so a read in a transaction is locked already and every read sees the last commit;
 * waits for another process's lock by trying again (retry.ts); a write outside a transaction
 * runs in one of its own (sqlite-writes.ts); no time or boolean types. Another process's writes
 * are heard through `PRAGMA data_version` (sqlite.ts), with no trigger to install.
 */
import { sql } from 'kysely';
import type { Row, SqlConnection, SqlDialect } from '../dialect.ts';
import { retryMigration } from '../retry.ts';
import { writesInTransactions } from '../sqlite-writes.ts';
import { insertCopy } from '../../versioned.ts';
import { common, createIndexIfNotExists, migrateInTransaction, updateReturning } from './shared.ts';

export function sqliteDialect(connection: SqlConnection): SqlDialect {
  return {
    ...connection,
    ...common,
    flavor: 'sqlite',
    // The embedded database is this host's own: `start` brings its schema up to date.
    migratesOnStart: true,
    columnType(spec) {
      switch (spec.kind) {
        case 'id':
        case 'string':
        case 'text':
        case 'json':
          return 'TEXT';
        case 'int':
        case 'bool':
          return 'INTEGER';
        case 'timestamp':
          // No time type: ISO 8601 UTC text with milliseconds, which sorts like the time.
          return 'TEXT';
      }
    },
    addedColumnDefault(spec) {
      switch (spec.kind) {
        case 'int':
        case 'bool':
          return '0';
        case 'timestamp':
          // Columns are only added with a constant default: the time of the migration, as text.
          return `'${new Date().toISOString()}'`;
        case 'json':
          return "'null'";
        default:
          return "''";
      }
    },
    tableOptions: '',
    async exists(db, kind, table, name) {
      const result =
        kind === 'column'
          ? await sql`SELECT 1 FROM pragma_table_info(${table}) WHERE name = ${name}`.execute(db)
          : await sql`SELECT 1 FROM sqlite_master WHERE type = ${kind} AND name = ${kind === 'table' ? table : name}`.execute(
              db,
            );
      return result.rows.length > 0;
    },
    createIndex: createIndexIfNotExists,
    // DDL is transactional, and BEGIN IMMEDIATE takes the writer lock: no lock of its own.
    migrate: (work) => retryMigration(() => migrateInTransaction(connection, work)),
    // Another process (a server starting, a CLI command) may hold the writer lock a while.
    retryBusy: retryMigration,
    // One writer at a time (BEGIN IMMEDIATE), so every read sees the last commit.
    begin: (db) => db.transaction(),
    // The transaction holds the writer lock from the start: a plain read is already locked.
    forUpdate: (query) => query,
    outsideTransaction: writesInTransactions,
    async updateVersioned(update, copy, portable) {
      if (!update.inTransaction) return portable();
      // The updated row comes back with the UPDATE, and the copy is made from it: two statements,
      // not a read, an update and an insert. `update` does without RETURNING here: libsql runs a
      // statement that returns rows through a cursor that stays open until it is collected, and
      // one that met another process's lock would keep the writer connection busy (its next
      // COMMIT fails). A transaction holds the write lock from its BEGIN IMMEDIATE, so this
      // statement cannot meet another process's lock.
      const row = (await updateReturning(update)) as (Row & { id: string; version: number }) | null;
      if (row) await insertCopy(update.tables, copy, row);
      return row;
    },
  };
}
