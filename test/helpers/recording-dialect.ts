/**
 * A SQL dialect that records the statements a table API runs instead of running them, so a test
 * can ask a real database how it would plan exactly those statements (EXPLAIN).
 */
import {
  Kysely,
  MysqlAdapter,
  MysqlIntrospector,
  MysqlQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type CompiledQuery,
  type DatabaseConnection,
} from 'kysely';
import type { SqlDialect } from '../../kernel/storage/kysely/dialect.ts';
import { mysqlDialect } from '../../kernel/storage/kysely/dialects/mysql.ts';
import { sqliteDialect } from '../../kernel/storage/kysely/dialects/sqlite.ts';

/** A `flavor` dialect whose every statement lands in `recorded` and answers no rows. */
export function recordingDialect(
  recorded: CompiledQuery[],
  flavor: 'mysql' | 'sqlite',
): SqlDialect {
  const connection: DatabaseConnection = {
    async executeQuery(query) {
      recorded.push(query);
      return { rows: [] };
    },
    streamQuery: () => {
      throw new Error('not used');
    },
  };
  const mysql = flavor === 'mysql';
  const db = new Kysely<any>({
    dialect: {
      createAdapter: () => (mysql ? new MysqlAdapter() : new SqliteAdapter()),
      createDriver: () => ({
        init: async () => undefined,
        acquireConnection: async () => connection,
        beginTransaction: async () => undefined,
        commitTransaction: async () => undefined,
        rollbackTransaction: async () => undefined,
        releaseConnection: async () => undefined,
        destroy: async () => undefined,
      }),
      createIntrospector: (kysely) =>
        mysql ? new MysqlIntrospector(kysely) : new SqliteIntrospector(kysely),
      createQueryCompiler: () => (mysql ? new MysqlQueryCompiler() : new SqliteQueryCompiler()),
    },
  });
  return (mysql ? mysqlDialect : sqliteDialect)({ db, close: () => db.destroy() });
}
