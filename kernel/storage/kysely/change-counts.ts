/**
 * Other processes' writes on MySQL/MariaDB, which has no change feed: a change sequence kept in the
 * database, written in the same transaction as the change.
 *
 * Row triggers on every hub table add one to a counter of that table in `hub_change_counts` as
 * part of the writing statement, so the count commits (or rolls back) with the change, whoever
 * writes (a hub, the CLI, a mysql client). Each table has SHARDS counter rows and a statement
 * counts on the row of its connection (`CONNECTION_ID() % SHARDS`): concurrent writers are on
 * different connections, so they seldom wait on one counter row, as they would on a single one.
 *
 * A lookup reads the per-table sums in one query, shared by every lookup that arrived while no
 * read had started (../batched.ts). Counters only grow, so an unchanged sum proves that nothing
 * was committed to that table between two reads; a changed one moves the table's stamp.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import { CHANGE_SEQUENCE_MIGRATION, type ChangeStamps } from '../changes.ts';
import { batched } from '../batched.ts';
import type { Table } from '../table.ts';
import { trackedColumns } from './codec.ts';
import type { OthersWatch } from './dialect.ts';

type Executor = Kysely<any> | Transaction<any>;

export const CHANGE_COUNTS_TABLE = 'hub_change_counts';
/** Counter rows per table: more than a hub's pool has connections, for few collisions. */
const SHARDS = 16;

export async function ensureChangeCounts(db: Executor): Promise<void> {
  await sql
    .raw(
      `CREATE TABLE IF NOT EXISTS ${CHANGE_COUNTS_TABLE} (table_name VARCHAR(64) NOT NULL, ` +
        'shard SMALLINT NOT NULL, n BIGINT NOT NULL DEFAULT 0, PRIMARY KEY (table_name, shard)) ' +
        'ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin',
    )
    .execute(db);
}

const TRIGGER_EVENTS = ['insert', 'update', 'delete'] as const;
const triggerName = (table: string, event: (typeof TRIGGER_EVENTS)[number]) =>
  `hub_count_${event}_${table}`.slice(0, 64);

/**
 * The counter rows and the three triggers of `table` (replaced, so a table that gained columns
 * compares them too). An UPDATE that changes only bookkeeping columns (`untracked`) counts nothing.
 */
export async function installChangeCounters(db: Executor, table: Table): Promise<void> {
  await ensureChangeCounts(db);
  const rows = Array.from({ length: SHARDS }, (_, shard) => `('${table.name}', ${shard}, 0)`);
  await sql
    .raw(
      `INSERT IGNORE INTO ${CHANGE_COUNTS_TABLE} (table_name, shard, n) VALUES ${rows.join(', ')}`,
    )
    .execute(db);
  const count =
    `INSERT INTO ${CHANGE_COUNTS_TABLE} (table_name, shard, n) ` +
    `VALUES ('${table.name}', CONNECTION_ID() % ${SHARDS}, 1) ON DUPLICATE KEY UPDATE n = n + 1`;
  const tracked = trackedColumns(table);
  const onUpdate =
    table.untracked.length > 0
      ? `IF NOT (${tracked.map((c) => `OLD.${c} <=> NEW.${c}`).join(' AND ')}) THEN ${count}; END IF;`
      : `${count};`;
  for (const [event, body] of [
    ['insert', `${count};`],
    ['update', onUpdate],
    ['delete', `${count};`],
  ] as const) {
    const name = triggerName(table.name, event);
    await sql.raw(`DROP TRIGGER IF EXISTS ${name}`).execute(db);
    await sql
      .raw(
        `CREATE TRIGGER ${name} AFTER ${event.toUpperCase()} ON ${table.name} FOR EACH ROW BEGIN ${body} END`,
      )
      .execute(db);
  }
}

/** Removes the counter triggers of `table` (one outside the change feed). */
export async function dropChangeCounters(db: Executor, table: Table): Promise<void> {
  for (const event of TRIGGER_EVENTS)
    await sql.raw(`DROP TRIGGER IF EXISTS ${triggerName(table.name, event)}`).execute(db);
}

/** Reads the sums for the lookups waiting, and moves the stamps of the tables whose sum moved. */
export function watchChangeCounts(db: Kysely<any>, stamps: ChangeStamps): OthersWatch {
  let installed = false;
  let closed = false;
  let seen: Map<string, string> | undefined;
  const read = batched(
    async () => {
      if (!installed) {
        // Until the migration has given every table its triggers, a change could go uncounted.
        const done = await sql`SELECT 1 FROM hub_migrations WHERE id = ${CHANGE_SEQUENCE_MIGRATION}`
          .execute(db)
          .catch(() => ({ rows: [] }));
        if (done.rows.length === 0) return false;
        installed = true;
      }
      const { rows } = await sql<{ table_name: string; n: unknown }>`
      SELECT table_name, SUM(n) AS n FROM hub_change_counts GROUP BY table_name`.execute(db);
      const now = new Map(rows.map((row) => [row.table_name, String(row.n)]));
      if (seen) {
        const moved = [...now].filter(([table, n]) => seen!.get(table) !== n).map(([t]) => t);
        if (moved.length > 0) stamps.bump(moved);
      } else stamps.bumpAll();
      seen = now;
      return !closed;
    },
    1,
    'turn',
  );
  return {
    // Nothing is kept before the first read of the counters (which starts the counting here).
    hearing() {
      if (seen === undefined && !closed) void read();
      return seen !== undefined && !closed;
    },
    current: (arrival) => (closed ? false : read(arrival)),
    close: async () => void (closed = true),
  };
}
