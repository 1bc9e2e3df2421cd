/**
 * SQLite: the audit log's newest events with no filter (the console overview's "last audit
 * events") are read from an index in the log's order, not by sorting the whole log. With only
 * the primary key, SQLite met the tenant's equality with one of the filter indexes and sorted
 * every event of the tenant in a temporary B-tree. The statement the table API builds is
 * recorded, then explained by the real database the audit plugin's migrations made.
 */
import {
  Kysely,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type CompiledQuery,
  type DatabaseConnection,
} from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StorageDriver } from '../../kernel/storage/contract.ts';
import { createDriver } from '../../kernel/storage/create-driver.ts';
import type { SqlDialect } from '../../kernel/storage/kysely/dialect.ts';
import { tableApi } from '../../kernel/storage/kysely/table-api.ts';
import { auditPlugin } from '../../plugins/audit/index.ts';
import { auditEventsTable } from '../../plugins/audit/tables.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/databases.ts';

/** The statements a SQLite-flavoured table API runs, without running them. */
function recordingDialect(recorded: CompiledQuery[]): SqlDialect {
  const connection: DatabaseConnection = {
    async executeQuery(query) {
      recorded.push(query);
      return { rows: [] };
    },
    streamQuery: () => {
      throw new Error('not used');
    },
  };
  const db = new Kysely<any>({
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => ({
        init: async () => undefined,
        acquireConnection: async () => connection,
        beginTransaction: async () => undefined,
        commitTransaction: async () => undefined,
        rollbackTransaction: async () => undefined,
        releaseConnection: async () => undefined,
        destroy: async () => undefined,
      }),
      createIntrospector: (kysely) => new SqliteIntrospector(kysely),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
  });
  return { kind: 'sqlite', flavor: 'sqlite', db, close: () => db.destroy() };
}

describe('the audit log newest first on SQLite', () => {
  let database: TestDatabase;
  let driver: StorageDriver;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    driver = await createDriver(database.config);
    for (const migration of auditPlugin.migrations ?? []) await driver.applyMigration(migration);
    const events = Array.from({ length: 2000 }, (_, i) => ({
      id: `0000${String(i).padStart(6, '0')}`,
      at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
      action: i % 2 === 0 ? 'user.created' : 'token.created',
      actorId: null,
      actorName: null,
      targetKind: 'user',
      targetId: `u${i % 50}`,
      targetName: 'someone',
      ip: null,
      requestId: null,
      details: {},
    }));
    await driver.forTenant('t1').table(auditEventsTable).insertMany(events);
  });
  afterAll(async () => {
    await driver?.close();
    await database?.drop();
  });

  it("reads a page of the tenant's whole log from an index, without sorting it", async () => {
    const recorded: CompiledQuery[] = [];
    const dialect = recordingDialect(recorded);
    await tableApi(
      {
        dialect,
        db: dialect.db,
        tenantId: 't1',
        inTransaction: false,
        changed: () => undefined,
        transaction: () => Promise.reject(new Error('not used')),
      },
      auditEventsTable,
    ).find({ orderBy: [['id', 'desc']], limit: 11 });
    const [query] = recorded;
    const plan = await database.query<{ detail: string }>(`EXPLAIN QUERY PLAN ${query!.sql}`, [
      ...query!.parameters,
    ]);
    const steps = plan.map((step) => step.detail).join(' | ');
    expect(steps).not.toMatch(/TEMP B-TREE/);
    expect(steps).toMatch(/USING (COVERING )?INDEX ix_audit_events_id/);
    const rows = await database.query<{ id: string }>(query!.sql, [...query!.parameters]);
    expect(rows.map((row) => row.id).slice(0, 2)).toEqual(['0000001999', '0000001998']);
  });
});
