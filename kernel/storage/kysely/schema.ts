/**
 * DDL from table declarations, idempotent on every flavour: creating what exists, or adding a
 * column or index that exists, is a no-op (checked through information_schema on MySQL, which has
 * no `CREATE INDEX IF NOT EXISTS`, and through sqlite_master / pragma_table_info on SQLite).
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import { toSnakeCase, type ColumnSpec, type Table } from '../table.ts';
import { TENANT_COLUMN } from './codec.ts';
import { addedColumnDefault, columnType, type SqlFlavor } from './dialect.ts';
import { dropChangeCounters, installChangeCounters } from './change-counts.ts';

type Executor = Kysely<any> | Transaction<any>;

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

async function exists(
  db: Executor,
  flavor: SqlFlavor,
  kind: 'table' | 'column' | 'index',
  table: string,
  name?: string,
): Promise<boolean> {
  let result;
  if (flavor === 'sqlite') {
    if (kind === 'column')
      result = await sql`SELECT 1 FROM pragma_table_info(${table}) WHERE name = ${name}`.execute(
        db,
      );
    else
      result =
        await sql`SELECT 1 FROM sqlite_master WHERE type = ${kind} AND name = ${kind === 'table' ? table : name}`.execute(
          db,
        );
    return result.rows.length > 0;
  }
  const schema = flavor === 'mysql' ? sql`DATABASE()` : sql`current_schema()`;
  if (kind === 'table')
    result =
      await sql`SELECT 1 FROM information_schema.tables WHERE table_schema = ${schema} AND table_name = ${table}`.execute(
        db,
      );
  else if (kind === 'column')
    result =
      await sql`SELECT 1 FROM information_schema.columns WHERE table_schema = ${schema} AND table_name = ${table} AND column_name = ${name}`.execute(
        db,
      );
  else if (flavor === 'mysql')
    result =
      await sql`SELECT 1 FROM information_schema.statistics WHERE table_schema = ${schema} AND table_name = ${table} AND index_name = ${name}`.execute(
        db,
      );
  else
    result =
      await sql`SELECT 1 FROM pg_indexes WHERE schemaname = current_schema() AND tablename = ${table} AND indexname = ${name}`.execute(
        db,
      );
  return result.rows.length > 0;
}

function columnDefinition(flavor: SqlFlavor, table: Table, name: string, forAdd: boolean): string {
  const spec = table.columns[name]!;
  const type = columnType(flavor, spec);
  if (name === 'id') return `id ${type} NOT NULL PRIMARY KEY`;
  if (spec.nullable) return `${toSnakeCase(name)} ${type} NULL`;
  return `${toSnakeCase(name)} ${type} NOT NULL${forAdd ? ` DEFAULT ${addedColumnDefault(flavor, spec)}` : ''}`;
}

export async function createIndexes(db: Executor, flavor: SqlFlavor, table: Table): Promise<void> {
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
    if (flavor === 'mysql') {
      if (await exists(db, flavor, 'index', table.name, name)) continue;
      await sql
        .raw(`CREATE ${unique ? 'UNIQUE ' : ''}INDEX ${name} ON ${table.name} (${columns})`)
        .execute(db);
    } else {
      await sql
        .raw(
          `CREATE ${unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS ${name} ON ${table.name} (${columns})`,
        )
        .execute(db);
    }
  }
}

export async function createTable(db: Executor, flavor: SqlFlavor, table: Table): Promise<void> {
  if (!(await exists(db, flavor, 'table', table.name))) {
    const columns = Object.keys(table.columns).map((name) =>
      columnDefinition(flavor, table, name, false),
    );
    if (table.tenantScoped) columns.splice(1, 0, `${TENANT_COLUMN} VARCHAR(128) NOT NULL`);
    const suffix =
      flavor === 'mysql' ? ' ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin' : '';
    await sql
      .raw(`CREATE TABLE IF NOT EXISTS ${table.name} (${columns.join(', ')})${suffix}`)
      .execute(db);
    await installChangeSignal(db, flavor, table);
  }
  await createIndexes(db, flavor, table);
}

/**
 * Drops a table no longer declared, with its rows, indexes and change signal (PostgreSQL and MySQL
 * drop a table's triggers with it); nothing when it is gone already.
 */
export async function dropTable(db: Executor, flavor: SqlFlavor, table: Table): Promise<void> {
  if (await exists(db, flavor, 'table', table.name))
    await sql.raw(`DROP TABLE ${table.name}`).execute(db);
}

/** The channel on which PostgreSQL tells every hub process which table a statement wrote. */
export const CHANGES_CHANNEL = 'workspace_hub_changes';
const CHANGE_TRIGGER = 'hub_changes';

/**
 * PostgreSQL: after each statement that writes the table (whoever runs it: a hub, the CLI, psql),
 * NOTIFY its name. Delivered at commit only, once per table and transaction; see ../changes.ts.
 */
async function installChangeTrigger(db: Executor, table: Table): Promise<void> {
  await sql
    .raw(
      `CREATE OR REPLACE FUNCTION hub_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$ ` +
        `BEGIN PERFORM pg_notify('${CHANGES_CHANNEL}', TG_TABLE_NAME); RETURN NULL; END $$`,
    )
    .execute(db);
  // An UPDATE that sets only bookkeeping columns (`untracked`) notifies no one.
  const untracked = new Set(table.untracked as readonly string[]);
  const tracked = [
    ...(table.tenantScoped ? [TENANT_COLUMN] : []),
    ...Object.keys(table.columns)
      .filter((c) => !untracked.has(c))
      .map(toSnakeCase),
  ];
  const update = untracked.size > 0 ? `UPDATE OF ${tracked.join(', ')}` : 'UPDATE';
  await sql.raw(`DROP TRIGGER IF EXISTS ${CHANGE_TRIGGER} ON ${table.name}`).execute(db);
  await sql
    .raw(
      `CREATE TRIGGER ${CHANGE_TRIGGER} AFTER INSERT OR ${update} OR DELETE OR TRUNCATE ON ${table.name} ` +
        'FOR EACH STATEMENT EXECUTE FUNCTION hub_notify_change()',
    )
    .execute(db);
}

/**
 * What tells other processes of the table's writes: PostgreSQL's NOTIFY, MySQL's counters; for a
 * table outside the change feed, nothing (a signal an earlier version installed is dropped).
 */
async function installChangeSignal(db: Executor, flavor: SqlFlavor, table: Table): Promise<void> {
  if (!table.changeFeed) {
    if (flavor === 'postgres')
      await sql.raw(`DROP TRIGGER IF EXISTS ${CHANGE_TRIGGER} ON ${table.name}`).execute(db);
    else if (flavor === 'mysql') await dropChangeCounters(db, table);
  } else if (flavor === 'postgres') await installChangeTrigger(db, table);
  else if (flavor === 'mysql') await installChangeCounters(db, table);
}

/** The change signal (trigger, counters) on each of these tables that exists. */
export async function installChangeTriggers(
  db: Executor,
  flavor: SqlFlavor,
  tables: readonly Table[],
): Promise<void> {
  for (const table of tables)
    if (await exists(db, flavor, 'table', table.name)) await installChangeSignal(db, flavor, table);
}

export async function addColumns(
  db: Executor,
  flavor: SqlFlavor,
  table: Table,
  names: readonly string[],
): Promise<void> {
  let added = false;
  for (const name of names) {
    if (await exists(db, flavor, 'column', table.name, toSnakeCase(name))) continue;
    await sql
      .raw(`ALTER TABLE ${table.name} ADD COLUMN ${columnDefinition(flavor, table, name, true)}`)
      .execute(db);
    added = true;
  }
  // A trigger that lists the tracked columns must compare the new one too.
  if (added && table.untracked.length > 0) await installChangeSignal(db, flavor, table);
}

export const MIGRATIONS_TABLE = 'hub_migrations';

export async function ensureMigrationsTable(db: Executor, flavor: SqlFlavor): Promise<void> {
  const timestamp = columnType(flavor, { kind: 'timestamp' } as ColumnSpec);
  await sql
    .raw(
      `CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (id VARCHAR(255) NOT NULL PRIMARY KEY, applied_at ${timestamp} NOT NULL)`,
    )
    .execute(db);
}
