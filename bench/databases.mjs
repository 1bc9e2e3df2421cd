/**
 * A new database for one bench run on each driver, as config text with a way to drop it: embedded
 * SQLite, PostgreSQL with Redis, MySQL/MariaDB, the Firestore emulator. Servers come from
 * HUB_BENCH_*_URL or the test variables (HUB_TEST_PG_URL, HUB_TEST_MYSQL_URL, HUB_TEST_REDIS_URL,
 * HUB_TEST_FIRESTORE_EMULATOR_HOST).
 */
import { join } from 'node:path';
import pg from 'pg';

const env = process.env;
export const pgUrl = env.HUB_BENCH_PG_URL ?? env.HUB_TEST_PG_URL;
export const mysqlUrl = env.HUB_BENCH_MYSQL_URL ?? env.HUB_TEST_MYSQL_URL;
export const firestoreHost =
  env.HUB_BENCH_FIRESTORE_EMULATOR_HOST ?? env.HUB_TEST_FIRESTORE_EMULATOR_HOST;
const redisUrl = env.HUB_BENCH_REDIS_URL ?? env.HUB_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export const DRIVERS = ['sqlite', 'postgres', 'mysql', 'firestore', 'default'];

/** The drivers configured on this machine, when none is asked for. */
export const configuredDrivers = () => [
  'sqlite',
  ...(pgUrl ? ['postgres'] : []),
  ...(mysqlUrl ? ['mysql'] : []),
  ...(firestoreHost ? ['firestore'] : []),
];

/** Extra environment the hub needs for a driver (the emulator's address). */
export const hubEnv = (driver) =>
  driver === 'firestore' ? { FIRESTORE_EMULATOR_HOST: firestoreHost } : {};

export async function prepareDatabase(driver, dir, port) {
  const server = `server:\n  port: ${port}\nlogging:\n  level: warn\n`;
  const name = `hub_bench_${Date.now()}_${process.pid}`;
  if (driver === 'default') return { yaml: server, drop: async () => {} };
  if (driver === 'sqlite') {
    const path = join(dir, 'data', 'hub.db');
    return {
      yaml: `${server}db:\n  driver: sqlite\n  path: ${path}\n`,
      history: () => sqliteHistory(path),
      drop: async () => {},
    };
  }
  if (driver === 'firestore') {
    if (!firestoreHost)
      throw new Error('--driver firestore needs HUB_TEST_FIRESTORE_EMULATOR_HOST');
    const project = name.replaceAll('_', '-');
    return {
      yaml: `${server}db:\n  driver: firestore\n  projectId: ${project}\n`,
      drop: async () =>
        void (await fetch(
          `http://${firestoreHost}/emulator/v1/projects/${project}/databases/(default)/documents`,
          { method: 'DELETE' },
        )),
    };
  }
  if (driver === 'mysql') {
    if (!mysqlUrl)
      throw new Error('--driver mysql needs HUB_BENCH_MYSQL_URL or HUB_TEST_MYSQL_URL');
    const mysql = await import('mysql2/promise');
    const u = new URL(mysqlUrl);
    const connection = () =>
      mysql.createConnection({
        host: u.hostname,
        port: Number(u.port || 3306),
        user: decodeURIComponent(u.username) || 'root',
        password: decodeURIComponent(u.password),
      });
    const admin = await connection();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    return {
      yaml: `${server}db:\n  driver: mysql\n  host: ${u.hostname}\n  port: ${u.port || 3306}\n  user: ${decodeURIComponent(u.username) || 'root'}\n  password: "${decodeURIComponent(u.password)}"\n  database: ${name}\n`,
      drop: async () => {
        const c = await connection();
        await c.query(`DROP DATABASE IF EXISTS ${name}`);
        await c.end();
      },
    };
  }
  if (!pgUrl) throw new Error('--driver postgres needs HUB_BENCH_PG_URL or HUB_TEST_PG_URL');
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(pgUrl);
  const r = new URL(redisUrl);
  const yaml = `${server}db:\n  driver: postgres\n  host: ${u.hostname}\n  port: ${u.port || 5432}\n  user: ${decodeURIComponent(u.username) || 'postgres'}\n  password: "${decodeURIComponent(u.password)}"\n  database: ${name}\nredis:\n  host: ${r.hostname}\n  port: ${r.port || 6379}\n  keyPrefix: "hub-bench-${name}:"\n`;
  const history = async () => {
    const c = new pg.Client({ connectionString: withDatabase(pgUrl, name) });
    await c.connect();
    try {
      if ((await c.query(`SELECT to_regclass('revisions') AS t`)).rows[0].t === null) return null;
      const { rows } = await c.query(
        `SELECT count(*)::int AS revisions, pg_total_relation_size('revisions')::bigint AS bytes FROM revisions`,
      );
      return { revisions: rows[0].revisions, bytes: Number(rows[0].bytes) };
    } finally {
      await c.end();
    }
  };
  const drop = async () => {
    const c = new pg.Client({ connectionString: pgUrl });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.end();
  };
  return { yaml, history, drop };
}

const withDatabase = (url, database) => {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.href;
};

/**
 * How many revisions the hub kept and the disk they take (table and indexes; on PostgreSQL with
 * its TOAST), or null for a hub without history. Read after the hub has stopped.
 */
async function sqliteHistory(path) {
  const { default: Database } = await import('libsql');
  const db = new Database(path, { readonly: true });
  try {
    const table = db.prepare(`SELECT name FROM sqlite_master WHERE name = 'revisions'`).get();
    if (!table) return null;
    const { revisions } = db.prepare('SELECT count(*) AS revisions FROM revisions').get();
    const { bytes } = db
      .prepare(
        `SELECT sum(pgsize) AS bytes FROM dbstat WHERE name IN
           (SELECT name FROM sqlite_master WHERE tbl_name = 'revisions')`,
      )
      .get();
    return { revisions, bytes };
  } finally {
    db.close();
  }
}
