/**
 * The composite indexes Firestore needs for the declared tables. Firestore indexes every single
 * field by itself; a query that filters on the tenant and orders or ranges on another field needs
 * a composite index, which only an operator (or the Firebase/gcloud tooling) can create.
 *
 * For each declared index, unique constraint and Firestore-only query shape (`firestoreIndexes`)
 * we emit (tenantId, columns…) ascending, and the same with the last column descending, which
 * covers "newest first" listings.
 */
import type { Table } from '../table.ts';
import { collectionName, TENANT_FIELD } from './codec.ts';

export interface CompositeIndex {
  collectionGroup: string;
  queryScope: 'COLLECTION';
  fields: { fieldPath: string; order: 'ASCENDING' | 'DESCENDING' }[];
}

/** Every composite index the tables need, without duplicates. */
export function compositeIndexes(tables: readonly Table[]): CompositeIndex[] {
  const seen = new Map<string, CompositeIndex>();
  for (const table of tables) {
    for (const columns of [...table.indexes, ...table.unique, ...table.firestoreIndexes]) {
      const fields = table.tenantScoped ? [TENANT_FIELD, ...columns] : [...columns];
      // A single field, or the tenant plus one equality, is served by automatic indexes alone.
      if (fields.length < 2) continue;
      for (const lastDescending of [false, true]) {
        const index: CompositeIndex = {
          collectionGroup: collectionName(table.name),
          queryScope: 'COLLECTION',
          fields: fields.map((fieldPath, i) => ({
            fieldPath,
            order: lastDescending && i === fields.length - 1 ? 'DESCENDING' : 'ASCENDING',
          })),
        };
        seen.set(JSON.stringify(index), index);
      }
    }
  }
  return [...seen.values()];
}

/** A `firestore.indexes.json` for `firebase deploy --only firestore:indexes`. */
export function indexFile(tables: readonly Table[]): string {
  return `${JSON.stringify({ indexes: compositeIndexes(tables), fieldOverrides: [] }, null, 2)}\n`;
}

/**
 * One `gcloud firestore indexes composite create` command per index; with `projectId` each names
 * the project, so the commands never land in whatever project gcloud happens to default to.
 */
export function indexCommands(
  tables: readonly Table[],
  databaseId = '(default)',
  projectId?: string,
): string[] {
  const project = projectId ? ` --project='${projectId}'` : '';
  return compositeIndexes(tables).map((index) => {
    const fields = index.fields
      .map((f) => `--field-config=field-path=${f.fieldPath},order=${f.order.toLowerCase()}`)
      .join(' ');
    return `gcloud firestore indexes composite create${project} --database='${databaseId}' --collection-group=${index.collectionGroup} --query-scope=collection ${fields}`;
  });
}

/** The tables a list of migrations creates or indexes. */
export function tablesOf(
  migrations: readonly { createTables?: readonly Table[]; addIndexes?: readonly Table[] }[],
): Table[] {
  const byName = new Map<string, Table>();
  for (const m of migrations)
    for (const table of [...(m.createTables ?? []), ...(m.addIndexes ?? [])])
      byName.set(table.name, table);
  return [...byName.values()];
}
