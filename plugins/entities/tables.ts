/**
 * The tables of the `entities` plugin. Structured values (variables, headers, auth, live-entity
 * configuration, run payloads) are `json` columns; everything a route filters or sorts on is a scalar
 * column with an index, so no query scans a whole tenant.
 */
import { usersTable } from '../../kernel/identity/tables.ts';
import type { Migration } from '../../kernel/storage/contract.ts';
import { col, defineTable, type RowOfTable } from '../../kernel/storage/table.ts';
import { historyUsageTable, revisionsTable, trashTable } from './history/tables.ts';
import {
  NAME_MAX,
  type AuthConfig,
  type BodyType,
  type KeyValue,
  type Method,
  type Protocol,
  type SnippetScope,
  type Variable,
} from './schemas.ts';

/** Who made a row and who touched it last (null only for rows made outside a user request). */
const attribution = {
  createdAt: col.timestamp(),
  updatedAt: col.timestamp(),
  createdByUserId: col.idNullable(),
  updatedByUserId: col.idNullable(),
  /** 1 when created, one more per recorded change (the `ETag`; see revisions below). */
  version: col.int(),
};

export const collectionsTable = defineTable({
  name: 'collections',
  columns: {
    id: col.id(),
    name: col.string(NAME_MAX),
    variables: col.json<Variable[]>(),
    headers: col.json<KeyValue[]>(),
    auth: col.json<AuthConfig>(),
    preRequestScript: col.text(),
    postRequestScript: col.text(),
    deletionLocked: col.bool(),
    marker: col.stringNullable(NAME_MAX),
    ...attribution,
  },
  indexes: [['name']],
});

export const environmentsTable = defineTable({
  name: 'environments',
  columns: {
    id: col.id(),
    name: col.string(NAME_MAX),
    variables: col.json<Variable[]>(),
    /** The environment this one inherits variables from, or null for a root. */
    parentUuid: col.idNullable(),
    deletionLocked: col.bool(),
    marker: col.stringNullable(NAME_MAX),
    ...attribution,
  },
  indexes: [['name'], ['parentUuid']],
});

export const snippetsTable = defineTable({
  name: 'snippets',
  columns: {
    id: col.id(),
    name: col.string(NAME_MAX),
    code: col.text(),
    scope: col.string<SnippetScope>(16),
    sortOrder: col.int(),
    deletionLocked: col.bool(),
    ...attribution,
  },
  indexes: [['sortOrder', 'name']],
});

/** Live servers and live pages share one layout: a name plus the desktop's configuration object. */
const liveColumns = {
  id: col.id(),
  name: col.string(NAME_MAX),
  payload: col.json<Record<string, unknown>>(),
  deletionLocked: col.bool(),
  ...attribution,
};

/** The columns the shared top-level routes (routes/top-level.ts) read and write on every top-level kind. */
export type TopLevelColumns = Pick<
  typeof liveColumns,
  'id' | 'name' | 'deletionLocked' | keyof typeof attribution
>;

export const liveServersTable = defineTable({
  name: 'live_servers',
  columns: liveColumns,
  indexes: [['name']],
});
export const livePagesTable = defineTable({
  name: 'live_pages',
  columns: liveColumns,
  indexes: [['name']],
});

export const foldersTable = defineTable({
  name: 'folders',
  columns: {
    id: col.id(),
    collectionId: col.id(),
    /** Null for a folder at the collection root. */
    parentFolderId: col.idNullable(),
    name: col.string(NAME_MAX),
    sortOrder: col.int(),
    marker: col.stringNullable(NAME_MAX),
    ...attribution,
  },
  indexes: [['collectionId', 'parentFolderId'], ['parentFolderId']],
});

/** Where a collection item sits: the first columns of saved requests and documents. */
const itemPlacement = {
  id: col.id(),
  collectionId: col.id(),
  /** Null for an item at the collection root. */
  folderId: col.idNullable(),
  name: col.string(NAME_MAX),
};
/** An item's position, marker and attribution: its last columns, after the kind's own. */
const itemPosition = { sortOrder: col.int(), marker: col.stringNullable(NAME_MAX), ...attribution };
/** The columns the shared item routes (routes/items.ts) read and write on every item kind. */
export type ItemColumns = typeof itemPlacement & typeof itemPosition;

export const requestsTable = defineTable({
  name: 'requests',
  columns: {
    ...itemPlacement,
    protocol: col.string<Protocol>(8),
    method: col.string<Method>(16),
    url: col.text(),
    headers: col.json<KeyValue[]>(),
    params: col.json<KeyValue[]>(),
    auth: col.json<AuthConfig>(),
    body: col.text(),
    bodyType: col.string<BodyType>(16),
    preRequestScript: col.text(),
    postRequestScript: col.text(),
    comment: col.text(),
    ...itemPosition,
  },
  indexes: [
    ['collectionId', 'folderId', 'sortOrder'],
    ['folderId', 'sortOrder'],
    ['createdByUserId'],
  ],
});

export const documentsTable = defineTable({
  name: 'documents',
  columns: { ...itemPlacement, content: col.text(), ...itemPosition },
  indexes: [
    ['collectionId', 'folderId', 'sortOrder'],
    ['folderId', 'sortOrder'],
    ['createdByUserId'],
  ],
});

export const runResultsTable = defineTable({
  name: 'run_results',
  columns: {
    id: col.id(),
    kind: col.string(32),
    label: col.text(),
    /** The hub collection the run belongs to (from the payload), which decides who may read it. */
    collectionId: col.idNullable(),
    collectionName: col.textNullable(),
    requestName: col.textNullable(),
    summaryPassed: col.int(),
    summaryFailed: col.int(),
    summarySkipped: col.int(),
    payload: col.json<Record<string, unknown>>(),
    createdAt: col.timestamp(),
    createdByUserId: col.idNullable(),
    /**
     * Bytes the run takes against its creator's limit (label and payload as JSON, UTF-8); null
     * for runs stored before limits existed, whose size is measured from the stored payload.
     */
    sizeBytes: col.intNullable(),
  },
  indexes: [['createdByUserId', 'createdAt'], ['createdAt'], ['collectionId']],
});

/** How many run results, and how many bytes of them, each user keeps (id: the user's id). */
export const runResultUsageTable = defineTable({
  name: 'run_result_usage',
  columns: {
    id: col.id(),
    count: col.int(),
    bytes: col.int(),
  },
});

export type CollectionRow = RowOfTable<typeof collectionsTable>;
export type EnvironmentRow = RowOfTable<typeof environmentsTable>;
export type SnippetRow = RowOfTable<typeof snippetsTable>;
export type LiveRow = RowOfTable<typeof liveServersTable>;
export type FolderRow = RowOfTable<typeof foldersTable>;
export type RequestRow = RowOfTable<typeof requestsTable>;
export type DocumentRow = RowOfTable<typeof documentsTable>;
export type RunResultRow = RowOfTable<typeof runResultsTable>;
export type RunResultUsageRow = RowOfTable<typeof runResultUsageTable>;

export const entityTables = [
  collectionsTable,
  environmentsTable,
  snippetsTable,
  liveServersTable,
  livePagesTable,
  foldersTable,
  requestsTable,
  documentsTable,
  runResultsTable,
  runResultUsageTable,
  revisionsTable,
  trashTable,
  historyUsageTable,
];

/** The tables whose rows carry a version and have revisions. */
const versionedTables = [
  collectionsTable,
  environmentsTable,
  snippetsTable,
  liveServersTable,
  livePagesTable,
  foldersTable,
  requestsTable,
  documentsTable,
];

export const entityMigrations: Migration[] = [
  { id: 'entities/0001-tables', createTables: entityTables },
  // The next position in a folder is one index probe: (collection, folder, sortOrder).
  { id: 'entities/0002-position-indexes', addIndexes: [requestsTable, documentsTable] },
  // Per-user limits on run results: each run's size, and a usage row per user. Runs stored before
  // keep a null size; a user's usage row is computed from their runs when first needed.
  {
    id: 'entities/0003-run-result-usage',
    addColumns: [{ table: runResultsTable, columns: ['sizeBytes'] }],
    createTables: [runResultUsageTable],
  },
  // The next position in a folder by the folder alone, (folder, sortOrder): a plan that reads the
  // whole folder and sorts it is then never the cheaper one, whatever the planner's statistics.
  { id: 'entities/0004-folder-position-indexes', addIndexes: [requestsTable, documentsTable] },
  // History: a version per record and its revisions. Records made before count as version 1;
  // their history starts with their next change.
  {
    id: 'entities/0005-history',
    addColumns: versionedTables.map((table) => ({ table, columns: ['version'] })),
    createTables: [revisionsTable, trashTable],
    async run(store) {
      for (const table of versionedTables)
        await store.table(table).updateWhere({ version: 0 }, { version: 1 });
    },
  },
  // History budget and undelete rules: each revision's size (0 for those written before: they
  // were never counted, so they never count), the usage counters, and who deleted what is in the
  // trash — an admin (or the command line) where the deleter is one now.
  {
    id: 'entities/0006-history-budget',
    addColumns: [
      { table: revisionsTable, columns: ['size'] },
      { table: trashTable, columns: ['byAdmin'] },
    ],
    createTables: [historyUsageTable],
    async run(store) {
      await store.table(trashTable).updateWhere({ actorId: null }, { byAdmin: true });
      const admins = await store.table(usersTable).find({ where: { role: 'admin' } });
      for (let i = 0; i < admins.length; i += 500) {
        const ids = admins.slice(i, i + 500).map((user) => user.id);
        await store.table(trashTable).updateWhere({ actorId: { in: ids } }, { byAdmin: true });
      }
    },
  },
  // The audit log's newest workspace changes read in id order per tenant, not sorted (SQLite).
  { id: 'entities/0007-revision-order-index', addIndexes: [revisionsTable] },
];
