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
    return {
      yaml: `${server}db:\n  driver: sqlite\n  path: ${join(dir, 'data', 'hub.db')}\n`,
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
  const drop = async () => {
    const c = new pg.Client({ connectionString: pgUrl });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.end();
  };
  return { yaml, drop };
}
