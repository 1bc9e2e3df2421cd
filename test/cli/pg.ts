/**
 * A PostgreSQL database of its own for each CLI test file, on the server named by HUB_TEST_PG_URL.
 * PostgreSQL suites are skipped only when that variable is unset outside CI.
 */
import pg from 'pg';

const url = process.env.HUB_TEST_PG_URL;

/** Whether the PostgreSQL suites must be skipped here. */
export const skipPg = !url && process.env.CI !== 'true';

export interface TestPgDatabase {
  /** The `db` section for server.yaml. */
  db: Record<string, unknown>;
  /** Runs SQL on the test database (to look behind the CLI, e.g. at the system account). */
  query<R extends pg.QueryResultRow = any>(sql: string, params?: unknown[]): Promise<R[]>;
  drop(): Promise<void>;
}

export async function createPgDatabase(): Promise<TestPgDatabase> {
  if (!url) throw new Error('HUB_TEST_PG_URL is not set');
  const name = `hub_test_cli_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const parsed = new URL(url);
  const db = {
    driver: 'postgres',
    host: parsed.hostname,
    port: Number(parsed.port || 5432),
    user: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
    database: name,
  };
  return {
    db,
    async query(sql, params) {
      const client = new pg.Client({ ...db, database: name });
      await client.connect();
      try {
        return (await client.query(sql, params)).rows;
      } finally {
        await client.end();
      }
    },
    async drop() {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
