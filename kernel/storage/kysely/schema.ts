/**
 * DDL from table declarations, idempotent on every database: creating what exists, or adding a
 * column or index that exists, is a no-op. The column types, how to tell what exists, and the
 * change signal each table gets are the dialect's (dialects/).
 */
import { sql } from 'kysely';
import { toSnakeCase, type ColumnSpec, type Table } from '../table.ts';
import { TENANT_COLUMN } from './codec.ts';
import type { Executor, SqlDialect } from './dialect.ts';

/** Index names stay under the 63/64-character limits of PostgreSQL and MySQL. */
function indexName(prefix: string, table: string, columns: readonly string[]): string {
  const name = `${prefix}_${table}_${columns.map(toSnakeCase).join('_')}`;
  if (name.length <= 60) return name;
  let hash = 0;
  for (const ch of name) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  return `${name.slice(0, 50)}_${hash.toString(36)}`;
}

function indexColumns(table: Table, columns: readonly string[]): string[] {
  const mapped = columns.map(toSnakeCase);
  return table.tenantScoped ? [TENANT_COLUMN, ...mapped] : mapped;
}

function columnDefinition(
  dialect: SqlDialect,
  table: Table,
  name: string,
  forAdd: boolean,
): string {
  const spec = table.columns[name]!;
  const type = dialect.columnType(spec);
  if (name === 'id') return `id ${type} NOT NULL PRIMARY KEY`;
  if (spec.nullable) return `${toSnakeCase(name)} ${type} NULL`;
  return `${toSnakeCase(name)} ${type} NOT NULL${forAdd ? ` DEFAULT ${dialect.addedColumnDefault(spec)}` : ''}`;
}

export async function createIndexes(
  db: Executor,
  dialect: SqlDialect,
  table: Table,
): Promise<void> {
  const all: [string, readonly string[], boolean][] = [
    ...table.unique.map(
      (cols) =>
        [indexName('uq', table.name, cols), cols, true] as [string, readonly string[], boolean],
    ),
    ...table.indexes.map(
      (cols) =>
        [indexName('ix', table.name, cols), cols, false] as [string, readonly string[], boolean],
    ),
  ];
  if (table.tenantScoped && table.indexes.length === 0)
    all.push([indexName('ix', table.name, []), [], false]);
  for (const [name, cols, unique] of all) {
    const columns = indexColumns(table, cols).join(', ');
    await dialect.createIndex(db, table.name, name, unique, columns);
  }
}

export async function createTable(db: Executor, dialect: SqlDialect, table: Table): Promise<void> {
  if (!(await dialect.exists(db, 'table', table.name))) {
    const columns = Object.keys(table.columns).map((name) =>
      columnDefinition(dialect, table, name, false),
    );
    if (table.tenantScoped) columns.splice(1, 0, `${TENANT_COLUMN} VARCHAR(128) NOT NULL`);
    await sql
      .raw(
        `CREATE TABLE IF NOT EXISTS ${table.name} (${columns.join(', ')})${dialect.tableOptions}`,
      )
      .execute(db);
    await dialect.changeSignal?.(db, table);
  }
  await createIndexes(db, dialect, table);
}

/**
 * Drops a table no longer declared, with its rows, indexes and change signal (PostgreSQL and MySQL
 * drop a table's triggers with it); nothing when it is gone already.
 */
export async function dropTable(db: Executor, dialect: SqlDialect, table: Table): Promise<void> {
  if (await dialect.exists(db, 'table', table.name))
    await sql.raw(`DROP TABLE ${table.name}`).execute(db);
}

/** The change signal (trigger, counters) on each of these tables that exists. */
export async function installChangeTriggers(
  db: Executor,
  dialect: SqlDialect,
  tables: readonly Table[],
): Promise<void> {
  if (!dialect.changeSignal) return;
  for (const table of tables)
    if (await dialect.exists(db, 'table', table.name)) await dialect.changeSignal(db, table);
}

export async function addColumns(
  db: Executor,
  dialect: SqlDialect,
  table: Table,
  names: readonly string[],
): Promise<void> {
  let added = false;
  for (const name of names) {
    if (await dialect.exists(db, 'column', table.name, toSnakeCase(name))) continue;
    await sql
      .raw(`ALTER TABLE ${table.name} ADD COLUMN ${columnDefinition(dialect, table, name, true)}`)
      .execute(db);
    added = true;
  }
  // A trigger that lists the tracked columns must compare the new one too.
  if (added && table.untracked.length > 0) await dialect.changeSignal?.(db, table);
}

export const MIGRATIONS_TABLE = 'hub_migrations';

export async function ensureMigrationsTable(db: Executor, dialect: SqlDialect): Promise<void> {
  const timestamp = dialect.columnType({ kind: 'timestamp' } as ColumnSpec);
  await sql
    .raw(
      `CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (id VARCHAR(255) NOT NULL PRIMARY KEY, applied_at ${timestamp} NOT NULL)`,
    )
    .execute(db);
}
