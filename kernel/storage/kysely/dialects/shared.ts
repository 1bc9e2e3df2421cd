/**
 * What two of the three databases share, for the dialect files to take: the behaviour most
 * databases have (each file overrides what its database does otherwise), and helpers.
 */
import { sql, type RawBuilder } from 'kysely';
import type {
  Executor,
  MigrationWork,
  Row,
  RowUpdate,
  SqlConnection,
  SqlDialect,
} from '../dialect.ts';
import { durably } from '../store.ts';

/** The dialect methods that most databases share. */
export type Common = Pick<
  SqlDialect,
  'forUpdate' | 'ordersBy' | 'recoverable' | 'retryBusy' | 'begin' | 'updateRow' | 'updateVersioned'
>;

export const common: Common = {
  forUpdate: (query) => query.forUpdate(),
  ordersBy: () => true,
  recoverable: (_trx, run) => run(),
  retryBusy: (run) => run(),
  // READ COMMITTED (PostgreSQL's default; MySQL's is REPEATABLE READ): a read after taking a row
  // lock must see what the previous lock holder committed, not a snapshot from before we waited.
  begin: (db) => db.transaction().setIsolationLevel('read committed'),
  updateRow: (_update, portable) => portable(),
  updateVersioned: (_update, _copy, portable) => portable(),
};

/** The UPDATE with the changed row coming back (`RETURNING`), decoded; null when none matched. */
export async function updateReturning(update: RowUpdate): Promise<Row | null> {
  const { db, table, values, filter, write, decode } = update;
  const row = await write(() =>
    db.updateTable(table.name).set(values).where(filter).returningAll().executeTakeFirst(),
  );
  return row ? decode(row as Row) : null;
}

/** `CREATE [UNIQUE] INDEX IF NOT EXISTS` (PostgreSQL, SQLite). */
export async function createIndexIfNotExists(
  db: Executor,
  table: string,
  name: string,
  unique: boolean,
  columns: string,
): Promise<void> {
  await sql
    .raw(`CREATE ${unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS ${name} ON ${table} (${columns})`)
    .execute(db);
}

/** A table or column in `information_schema` (PostgreSQL, MySQL), in the current `schema`. */
export async function inInformationSchema(
  db: Executor,
  schema: RawBuilder<unknown>,
  kind: 'table' | 'column',
  table: string,
  name?: string,
): Promise<boolean> {
  const result =
    kind === 'table'
      ? await sql`SELECT 1 FROM information_schema.tables WHERE table_schema = ${schema} AND table_name = ${table}`.execute(
          db,
        )
      : await sql`SELECT 1 FROM information_schema.columns WHERE table_schema = ${schema} AND table_name = ${table} AND column_name = ${name}`.execute(
          db,
        );
  return result.rows.length > 0;
}

/**
 * A migration in one transaction (PostgreSQL and SQLite run DDL inside one), so it lands whole or
 * not at all; `lock` takes the cross-process migration lock first, where BEGIN does not.
 */
export function migrateInTransaction(
  connection: SqlConnection,
  work: MigrationWork,
  lock: (trx: Executor) => Promise<void> = async () => undefined,
): Promise<void> {
  return durably(connection, connection.db.transaction(), async (trx) => {
    await lock(trx);
    if (await work.done(trx)) return;
    await work.schema(trx);
    await work.data(trx);
  });
}
