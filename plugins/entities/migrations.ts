/**
 * The tables of the `entities` plugin and the migrations that made them. A migration is history:
 * it names the tables as they were when it was written, so a kind added later brings a migration
 * of its own that creates its table.
 */
import { usersTable } from '../../kernel/identity/tables.ts';
import type { Migration } from '../../kernel/storage/contract.ts';
import type { Table } from '../../kernel/storage/table.ts';
import { historyUsageTable, revisionsTable, trashTable } from './history/tables.ts';
import { KINDS } from './kinds/index.ts';
import {
  collectionsTable,
  documentsTable,
  environmentsTable,
  foldersTable,
  livePagesTable,
  liveServersTable,
  requestsTable,
  runResultsTable,
  runResultUsageTable,
  snippetsTable,
} from './tables.ts';

/** Every table of the plugin: each kind's (the registry's order), then the bookkeeping. */
export const entityTables: Table[] = [
  ...KINDS.map((kind) => kind.table),
  runResultUsageTable,
  revisionsTable,
  trashTable,
  historyUsageTable,
];

/** The tables whose rows had revisions when history began (a later kind's table starts with them). */
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
