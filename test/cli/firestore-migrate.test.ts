/**
 * `workspace-hub migrate` on Firestore, against the official emulator
 * (`HUB_TEST_FIRESTORE_EMULATOR_HOST`; under CI=true a missing variable fails): it applies the
 * migrations and tells the operator which composite indexes to create, as gcloud commands or as a
 * firestore.indexes.json file with `--firestore-indexes`.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectMigrations } from '../../kernel/schema.ts';
import { compositeIndexes, tablesOf } from '../../kernel/storage/firestore/indexes.ts';
import { plugins } from '../../plugins/index.ts';
import { createFirestoreTestDatabase, FIRESTORE_HOST_VAR } from '../helpers/firestore.ts';
import { requireService } from '../helpers/services.ts';
import { createProject, quietLogging, type Project } from '../helpers/cli.ts';

const emulator = requireService(FIRESTORE_HOST_VAR);

describe('migrate --firestore-indexes elsewhere', () => {
  it('is refused on a SQL database with exit code 2 and nothing on stdout', async () => {
    const project = await createProject({
      db: { driver: 'sqlite', path: './data/hub.db' },
      ...quietLogging,
    });
    try {
      const { code, stderr, stdout } = await project.run(
        'migrate',
        '--firestore-indexes',
        'firestore.indexes.json',
      );
      expect(code).toBe(2);
      expect(stderr).toContain('--firestore-indexes applies only to db.driver: firestore');
      expect(stdout).toBe('');
    } finally {
      await project.remove();
    }
  }, 60_000);
});

describe('migrate on Firestore', () => {
  it('has the emulator it needs under CI=true', () => {
    if (process.env.CI === 'true')
      expect(emulator, `CI=true but ${FIRESTORE_HOST_VAR} is not set`).toBeTruthy();
  });

  describe.runIf(emulator)('against the emulator', () => {
    let project: Project;
    let database: Awaited<ReturnType<typeof createFirestoreTestDatabase>>;
    const expected = compositeIndexes(tablesOf(collectMigrations(plugins)));

    beforeAll(async () => {
      // Sets FIRESTORE_EMULATOR_HOST here, which the CLI processes inherit.
      database = await createFirestoreTestDatabase();
      project = await createProject({ db: database.config, ...quietLogging });
    });
    afterAll(async () => {
      await project?.remove();
      await database?.drop();
    });

    it('writes firestore.indexes.json with --firestore-indexes and reports it in --json', async () => {
      const file = join(project.dir, 'firestore.indexes.json');
      const result = await project.json('migrate', '--firestore-indexes', 'firestore.indexes.json');
      expect(result.applied.length).toBeGreaterThan(0);
      expect(result.firestoreIndexes.file).toBe(file);
      expect(result.firestoreIndexes.indexes).toEqual(expected);
      expect(result.firestoreIndexes.commands).toHaveLength(expected.length);

      const written = JSON.parse(await readFile(file, 'utf8'));
      expect(written).toEqual({ indexes: expected, fieldOverrides: [] });
      expect(written.indexes.length).toBeGreaterThan(0);
      const keys = written.indexes.map((index: unknown) => JSON.stringify(index));
      expect(new Set(keys).size).toBe(keys.length);
      for (const index of written.indexes) {
        expect(index.queryScope).toBe('COLLECTION');
        expect(typeof index.collectionGroup).toBe('string');
        expect(index.fields.length).toBeGreaterThanOrEqual(2);
        for (const field of index.fields)
          expect(['ASCENDING', 'DESCENDING']).toContain(field.order);
      }
      // Tenant-scoped listings: the tenant first, and a newest-first variant of each.
      expect(
        written.indexes.some(
          (index: { fields: { fieldPath: string }[] }) => index.fields[0]!.fieldPath === 'tenantId',
        ),
      ).toBe(true);
      expect(
        written.indexes.some(
          (index: { fields: { order: string }[] }) => index.fields.at(-1)!.order === 'DESCENDING',
        ),
      ).toBe(true);
      // The audit log's queries, which SQL serves along the primary key: newest first per
      // tenant, by any mix of its filters, on both the revisions and the audit events.
      const shapes = written.indexes.map(
        (index: { collectionGroup: string; fields: { fieldPath: string; order: string }[] }) =>
          `${index.collectionGroup}:${index.fields.map((f) => `${f.fieldPath}${f.order === 'DESCENDING' ? '-' : ''}`).join(',')}`,
      );
      expect(shapes).toEqual(
        expect.arrayContaining([
          'revisions:tenantId,id-',
          'revisions:tenantId,actorId,id-',
          'revisions:tenantId,kind,action,id-',
          'revisions:tenantId,recordId,id-',
          'revisions:tenantId,actorId,kind,action,recordId,id-',
          'auditEvents:tenantId,id-',
          'auditEvents:tenantId,actorId,action,id-',
          'auditEvents:tenantId,action,targetId,id-',
          // Pruning a record's oldest versions.
          'revisions:tenantId,recordId,version',
        ]),
      );
    }, 120_000);

    it('prints one gcloud command per index for people, naming the project', async () => {
      const { code, stdout, stderr } = await project.run('migrate');
      expect(code, stderr).toBe(0);
      expect(stdout).toContain('Database is up to date.');
      expect(stdout).toContain(`Firestore needs ${expected.length} composite index(es)`);
      const commands = stdout
        .split('\n')
        .filter((line) => line.trim().startsWith('gcloud firestore indexes composite create'));
      expect(commands).toHaveLength(expected.length);
      const projectId = (database.config as { projectId: string }).projectId;
      for (const command of commands) {
        expect(command).toContain(`--project='${projectId}'`);
        expect(command).toContain(`--database='(default)'`);
        expect(command).toMatch(
          /--collection-group=\S+ --query-scope=collection( --field-config=field-path=\S+,order=(ascending|descending)){2,}$/,
        );
      }
    }, 120_000);
  });
});
