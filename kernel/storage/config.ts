/** The `db` section of server.yaml. */
import { z } from 'zod';
import { secret } from '../config/secrets.ts';

const port = z.coerce.number().int().min(1).max(65535);

const sslOption = z
  .union([
    z.boolean(),
    z.enum(['true', 'false']).transform((v) => v === 'true'),
    z.strictObject({
      rejectUnauthorized: z.boolean().optional(),
      ca: z.string().optional(),
      cert: z.string().optional(),
      key: secret(z.string().optional()),
    }),
  ])
  .optional();

const networkDb = {
  host: z.string().min(1).default('127.0.0.1'),
  user: z.string().min(1),
  password: secret(z.string().default('')),
  database: z.string().min(1),
  /** Connection pool size. @default 10 */
  max: z.coerce.number().int().min(1).max(1000).default(10),
  ssl: sslOption,
  /** Milliseconds to open one new connection (PostgreSQL: also the longest wait in the pool's queue). @default 10000 */
  connectionTimeoutMillis: z.coerce.number().int().min(0).default(10_000),
  /**
   * Milliseconds a request waits for a pooled connection (a free one, or a new one) before it gets
   * 503. @default 5000
   */
  acquireTimeoutMillis: z.coerce.number().int().min(1).max(600_000).optional(),
  /**
   * Milliseconds one statement may take before the request gets 503; the connection is then
   * discarded, and PostgreSQL's `statement_timeout` stops the statement on the server. Migrations
   * are not bounded. @default 5000
   */
  queryTimeoutMillis: z.coerce.number().int().min(1).max(600_000).optional(),
};

export const DEFAULT_SQLITE_PATH = './data/hub.db';

export const sqliteDbSchema = z.strictObject({
  driver: z.literal('sqlite'),
  /** The database file (its directory is created 0700, the file 0600); `:memory:` for tests. @default ./data/hub.db */
  path: z.string().min(1).default(DEFAULT_SQLITE_PATH),
  /**
   * `normal`: a power cut may lose the last committed transactions, never corrupt the file;
   * `full`: nothing committed is lost, at the cost of a disk flush per commit. A crash of the
   * process alone loses nothing in either. @default normal
   */
  synchronous: z.enum(['normal', 'full']).default('normal'),
});

export const PGLITE_REMOVED =
  'the embedded PGlite database is no longer supported; use "driver: sqlite" (path: ./data/hub.db) instead. ' +
  'There is no converter from PGlite data: read what you need out with the previous version (its HTTP API) and re-create it.';

/** `driver: pglite` from an older server.yaml: refused with what to do instead. */
const pgliteRemovedSchema = z
  .looseObject({ driver: z.literal('pglite') })
  .superRefine((_value, ctx) => {
    ctx.addIssue({ code: 'custom', path: ['driver'], message: PGLITE_REMOVED });
  });

export const postgresDbSchema = z.strictObject({
  driver: z.literal('postgres'),
  port: port.default(5432),
  ...networkDb,
  /**
   * Prepare each statement once per connection (named statements). Turn off behind a pooler that
   * cannot keep them, such as PgBouncer before 1.21 in transaction mode. @default true
   */
  preparedStatements: z.boolean().optional(),
});

export const mysqlDbSchema = z.strictObject({
  driver: z.literal('mysql'),
  port: port.default(3306),
  ...networkDb,
});

export const firestoreDbSchema = z.strictObject({
  driver: z.literal('firestore'),
  projectId: z.string().min(1),
  keyFilename: z.string().min(1).optional(),
  databaseId: z.string().min(1).optional(),
  /**
   * Milliseconds one storage call (or one whole transaction) may take before the request gets 503;
   * the client's own deadlines and retries can otherwise hold it for minutes. A migration as a
   * whole is not bounded. @default 10000
   */
  timeoutMillis: z.coerce.number().int().min(1).max(600_000).optional(),
});

export const dbSchema = z
  .discriminatedUnion('driver', [
    sqliteDbSchema,
    postgresDbSchema,
    mysqlDbSchema,
    firestoreDbSchema,
    pgliteRemovedSchema,
  ])
  .default({ driver: 'sqlite', path: DEFAULT_SQLITE_PATH, synchronous: 'normal' });

export type DbConfig = z.output<typeof dbSchema>;
export type SqliteDbConfig = z.output<typeof sqliteDbSchema>;
export type PostgresDbConfig = z.output<typeof postgresDbSchema>;
export type MysqlDbConfig = z.output<typeof mysqlDbSchema>;
export type FirestoreDbConfig = z.output<typeof firestoreDbSchema>;
