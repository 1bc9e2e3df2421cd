/**
 * PostgreSQL's writes in one statement, where the other databases take several: a transaction's
 * insert batches as one INSERT with the others in `WITH`s (store.ts), and a versioned update with
 * the copy of its row (table-api.ts's updateVersioned; versioned.ts has the portable way). The
 * PostgreSQL dialect (dialects/postgres.ts) picks them.
 */
import { sql, type Kysely } from 'kysely';
import type { CopyOfUpdate, InsertBatch } from '../contract.ts';
import type { BatchScope, Row, RowUpdate } from './dialect.ts';
import { codecFor, INSERT_CHUNK, insertedValues, TENANT_COLUMN } from './codec.ts';
import { mapError } from './errors.ts';
import { pgCast, snapshotSql } from './snapshot-sql.ts';

/** The alias of a versioned update's copy size in its answer (no column is named so). */
const COPY_SIZE = '__copy_size';

/** Bound parameters in one statement of {@link insertAllAtOnce}: well under PostgreSQL's 65 535. */
const INSERT_ALL_PARAMETERS = 30_000;

/**
 * PostgreSQL, inside a transaction: the batches' INSERTs as one statement, each after the first
 * in a `WITH` (PostgreSQL runs a data-modifying `WITH` exactly once, referenced or not). False
 * when a batch needs more than one INSERT (see INSERT_CHUNK) or the statement would bind too many
 * values; the caller inserts batch by batch then.
 */
export async function insertAllAtOnce(
  scope: BatchScope,
  batches: readonly InsertBatch[],
): Promise<boolean> {
  if (batches.some(({ rows }) => rows.length > INSERT_CHUNK)) return false;
  const encoded = batches.map(({ table, rows }) => ({
    name: table.name,
    values: rows.map((row) => insertedValues(table, codecFor(table), scope.tenantId, row)),
  }));
  const parameters = encoded.reduce(
    (sum, { values }) => sum + values.length * Object.keys(values[0] ?? {}).length,
    0,
  );
  if (parameters > INSERT_ALL_PARAMETERS) return false;
  const [first, ...rest] = encoded;
  if (!first) return true;
  let query: any = scope.db;
  rest.forEach(({ name, values }, i) => {
    query = query.with(`batch_${i}`, (qc: any) => qc.insertInto(name).values(values));
  });
  try {
    await query
      .insertInto(first.name)
      .values(first.values)
      .execute()
      .catch((error: unknown) => {
        // A refused row names its table (PostgreSQL's error says which); any batch may hold it.
        const table = (error as { table?: unknown }).table;
        mapError(error, typeof table === 'string' ? table : first.name);
      });
  } finally {
    scope.changed(batches.filter(({ table }) => table.changeFeed).map(({ table }) => table.name));
  }
  return true;
}

/**
 * The UPDATE in a WITH, the copy's INSERT reading its RETURNING, no transaction to begin and
 * commit. The copy of the row is built once by the database as the JSON the codec would write
 * (snapshotSql); its size comes back with the row. `update.values` sets the columns and the version.
 */
export async function updateVersionedAtOnce(
  target: RowUpdate,
  copy: CopyOfUpdate,
): Promise<Row | null> {
  const into = codecFor(copy.into);
  const own = Object.entries(copy.row).filter(
    ([column, value]) => value !== undefined && column !== 'tenantId',
  );
  // The copy belongs to the updated row's tenant (also through the unscoped store).
  const tenant = copy.into.tenantScoped ? [TENANT_COLUMN] : [];
  const sized = copy.sizeColumn ? [into.column(copy.sizeColumn)] : [];
  const columns = [
    ...tenant,
    ...own.map(([column]) => into.column(column)),
    into.column(copy.recordColumn),
    into.column(copy.versionColumn),
    into.column(copy.snapshotColumn),
    ...sized,
  ];
  const selected = [
    ...tenant.map((column) => sql.ref(`u.${column}`)),
    ...own.map(
      ([column, value]) =>
        sql`${into.encode(column, value)}::${sql.raw(pgCast(copy.into, column))}`,
    ),
    sql.ref('u.id'),
    sql.ref('u.version'),
    sql.ref('s.snapshot'),
    ...sized.map(() => sql`octet_length(s.snapshot)`),
  ];
  const found = await target.write(() =>
    (target.db as Kysely<any>)
      .with('u', (qb) =>
        qb.updateTable(target.table.name).set(target.values).where(target.filter).returningAll(),
      )
      .with('s', () => sql`(SELECT ${sql.raw(snapshotSql(target.table))}::text AS snapshot FROM u)`)
      .with('copy', (qb) =>
        qb
          .insertInto(copy.into.name)
          .columns(columns)
          .expression(sql`SELECT ${sql.join(selected)} FROM u, s`),
      )
      .selectFrom(['u', 's'])
      .selectAll('u')
      .select(sql<number>`octet_length(s.snapshot)`.as(COPY_SIZE))
      .executeTakeFirst(),
  );
  if (!found) return null;
  const { [COPY_SIZE]: size, ...row } = found as Row;
  if (copy.sizeColumn) copy.sized?.(Number(size));
  return target.decode(row);
}
