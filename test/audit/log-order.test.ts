/**
 * SQLite: a page of the audit log with no filter (the console overview's "last audit events"),
 * its own events and the workspace changes read from the revisions, is read from indexes in the
 * log's order, not by sorting the whole log. With only the primary keys, SQLite met the tenant's
 * equality with another index and sorted every event, and every revision with its snapshot, in a
 * temporary B-tree. The statements `GET /admin/audit`'s page runs are recorded, then explained by
 * a real database with the tables as declared.
 */
import type { CompiledQuery } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StorageDriver } from '../../kernel/storage/contract.ts';
import { createDriver } from '../../kernel/storage/create-driver.ts';
import { timeIdPrefix } from '../../kernel/time-id.ts';
import { createSqlStore } from '../../kernel/storage/kysely/store.ts';
import { auditPlugin } from '../../plugins/audit/index.ts';
import { auditPage } from '../../plugins/audit/query.ts';
import { auditEventsTable } from '../../plugins/audit/tables.ts';
import { revisionsTable } from '../../plugins/entities/history/tables.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/databases.ts';
import { recordingDialect } from '../helpers/recording-dialect.ts';

describe('the audit log newest first on SQLite', () => {
  let database: TestDatabase;
  let driver: StorageDriver;
  const at = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    driver = await createDriver(database.config);
    for (const migration of auditPlugin.migrations ?? []) await driver.applyMigration(migration);
    await driver.applyMigration({ id: 'test/0001-revisions', createTables: [revisionsTable] });
    const store = driver.forTenant('t1');
    await store.table(auditEventsTable).insertMany(
      Array.from({ length: 2000 }, (_, i) => ({
        id: `${timeIdPrefix(Date.parse(at(i)))}e${String(i).padStart(6, '0')}`,
        at: at(i),
        action: i % 2 === 0 ? 'user.created' : 'token.created',
        actorId: null,
        actorName: null,
        targetKind: 'user',
        targetId: `u${i % 50}`,
        targetName: 'someone',
        ip: null,
        requestId: null,
        details: {},
      })),
    );
    await store.table(revisionsTable).insertMany(
      Array.from({ length: 2000 }, (_, i) => ({
        id: `${timeIdPrefix(Date.parse(at(i)))}r${String(i).padStart(6, '0')}`,
        kind: 'request' as const,
        recordId: `r${i % 40}`,
        version: Math.floor(i / 40) + 1,
        action: 'updated' as const,
        at: at(i),
        actorId: null,
        actorName: null,
        ip: null,
        requestId: null,
        via: null,
        snapshot: { name: 'Ping', body: 'x'.repeat(200) },
        size: 200,
      })),
    );
  });
  afterAll(async () => {
    await driver?.close();
    await database?.drop();
  });

  it("reads a page of the tenant's whole log, events and changes, from indexes without sorting", async () => {
    const recorded: CompiledQuery[] = [];
    const dialect = recordingDialect(recorded, 'sqlite');
    const store = createSqlStore(dialect, dialect.db, 't1', false);
    await auditPage(store, { limit: 10, keptSince: at(0) });
    expect(recorded.map((query) => /FROM "?(\w+)"?/i.exec(query.sql)?.[1])).toEqual([
      'audit_events',
      'revisions',
    ]);
    for (const query of recorded) {
      const plan = await database.query<{ detail: string }>(`EXPLAIN QUERY PLAN ${query.sql}`, [
        ...query.parameters,
      ]);
      const steps = plan.map((step) => step.detail).join(' | ');
      expect(steps, query.sql).not.toMatch(/TEMP B-TREE/);
      expect(steps, query.sql).toMatch(/USING (COVERING )?INDEX ix_(audit_events|revisions)_id\b/);
      const rows = await database.query<{ id: string }>(query.sql, [...query.parameters]);
      expect(rows.map((row) => row.id.slice(-6))).toEqual([
        '001999',
        '001998',
        '001997',
        '001996',
        '001995',
        '001994',
        '001993',
        '001992',
        '001991',
        '001990',
        '001989',
      ]);
    }
  });
});
