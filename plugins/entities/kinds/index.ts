/**
 * The registry of record kinds: one entry per kind of record the plugin keeps, from which every
 * table keyed by kind is derived. An entry names the kind once — the name its revisions, trash
 * rows, audit events, `entities.deleted` events and targets carry (`live-server` and `live-page`
 * as their stored revisions spell them) — with its API prefix, table, record, placement, who may
 * use it (a top-level kind's access list; the collection for what sits in one), whether it keeps
 * history, and, for what discussions, notices and MLS groups attach to, what such a target
 * carries. A top-level kind's behaviour (bodies, how its rows are built and patched) is in its own
 * file, joined to its entry in behaviours.ts; an item kind needs none.
 */
import type { EntityAccessField } from '../../../kernel/identity/access.ts';
import {
  livePageRecord,
  liveServerRecord,
  toLivePageRecord,
  toLiveServerRecord,
} from '../live-records.ts';
import {
  collectionRecord,
  documentRecord,
  environmentRecord,
  folderRecord,
  requestRecord,
  runResultRecord,
  snippetRecord,
  toCollectionRecord,
  toDocumentRecord,
  toEnvironmentRecord,
  toFolderRecord,
  toRequestRecord,
  toRunResultRecord,
  toSnippetRecord,
} from '../records.ts';
import {
  collectionsTable,
  documentsTable,
  environmentsTable,
  foldersTable,
  livePagesTable,
  liveServersTable,
  requestsTable,
  runResultsTable,
  snippetsTable,
  type CollectionRow,
  type FolderRow,
  type RequestRow,
  type RunResultRow,
} from '../tables.ts';
import { itemKind, type ItemKind } from './item.ts';
import type { KindEntry, Placement } from './kind.ts';
import { topLevelKind, type AnyTopLevelKind } from './top-level.ts';

export const KINDS = [
  topLevelKind({
    name: 'collection',
    prefix: 'collections',
    listKey: 'collections',
    noun: 'collection',
    notFound: 'Collection not found',
    table: collectionsTable,
    record: collectionRecord,
    toRecord: toCollectionRecord,
    field: 'collectionAccess',
    creatorOnlyDelete: true,
    container: true,
    target: (row: CollectionRow) => ({
      collectionId: row.id,
      creatorUserId: row.createdByUserId,
      label: row.name,
    }),
  }),
  topLevelKind({
    name: 'environment',
    prefix: 'environments',
    listKey: 'environments',
    noun: 'environment',
    notFound: 'Environment not found',
    table: environmentsTable,
    record: environmentRecord,
    toRecord: toEnvironmentRecord,
    field: 'environmentAccess',
  }),
  topLevelKind({
    name: 'snippet',
    prefix: 'snippets',
    listKey: 'snippets',
    noun: 'snippet',
    notFound: 'Snippet not found',
    table: snippetsTable,
    record: snippetRecord,
    toRecord: toSnippetRecord,
    field: 'snippetAccess',
  }),
  topLevelKind({
    name: 'live-server',
    prefix: 'live-servers',
    listKey: 'liveServers',
    noun: 'live server',
    notFound: 'Live server not found',
    table: liveServersTable,
    record: liveServerRecord,
    toRecord: toLiveServerRecord,
    field: 'liveServerAccess',
  }),
  topLevelKind({
    name: 'live-page',
    prefix: 'live-pages',
    listKey: 'livePages',
    noun: 'live page',
    notFound: 'Live page not found',
    table: livePagesTable,
    record: livePageRecord,
    toRecord: toLivePageRecord,
    field: 'livePageAccess',
  }),
  {
    name: 'folder',
    prefix: 'folders',
    noun: 'folder',
    notFound: 'Folder not found',
    table: foldersTable,
    record: folderRecord,
    toRecord: toFolderRecord,
    placement: 'folder',
    history: true,
    target: (row: FolderRow) => ({
      collectionId: row.collectionId,
      folderId: row.id,
      creatorUserId: row.createdByUserId,
      label: row.name,
    }),
  },
  itemKind({
    name: 'request',
    prefix: 'requests',
    noun: 'saved request',
    notFound: 'Request not found',
    idsKey: 'orderedRequestIds',
    table: requestsTable,
    record: requestRecord,
    toRecord: toRequestRecord,
    target: (row: RequestRow) => ({
      collectionId: row.collectionId,
      folderId: row.folderId,
      requestId: row.id,
      creatorUserId: row.createdByUserId,
      label: row.name,
      method: row.method,
    }),
  }),
  itemKind({
    name: 'document',
    prefix: 'documents',
    noun: 'document',
    notFound: 'Document not found',
    idsKey: 'orderedDocumentIds',
    table: documentsTable,
    record: documentRecord,
    toRecord: toDocumentRecord,
  }),
  {
    name: 'runResult',
    prefix: 'run-results',
    noun: 'run result',
    notFound: 'Run result not found',
    table: runResultsTable,
    record: runResultRecord,
    toRecord: toRunResultRecord,
    placement: 'run',
    history: false,
    // Readable by its creator, admins and whoever may use its collection (run-results/access.ts).
    target: (row: RunResultRow) => ({
      collectionId: row.collectionId,
      runResultId: row.id,
      creatorUserId: row.createdByUserId,
      label: row.label,
    }),
  },
] as const;

type Entry = (typeof KINDS)[number];
/** Every kind's one name. */
export type KindName = Entry['name'];
/** The kinds whose changes are kept as revisions. */
export type HistoryKind = Extract<Entry, { history: true }>['name'];
/** The kinds other features attach things to, in the spelling the API uses. */
export type TargetType = Extract<Entry, { target: unknown }>['name'];
export type TopLevelName = Extract<Entry, { placement: 'top-level' }>['name'];
export type ItemKindName = Extract<Entry, { placement: 'item' }>['name'];

/** A top-level kind, joined with its behaviour, as the shared top-level routes hold it. */
export type TopLevelKind = AnyTopLevelKind & { name: TopLevelName };
/** An item kind as the shared item routes hold it. */
export type AnyItemKind = ItemKind & { name: ItemKindName };

/** A registry entry as code that serves every kind reads it. */
export type Kind<N extends KindName = KindName> = KindEntry & { name: N };

// Also the check that every entry is a whole registry entry.
const entries: readonly Kind[] = KINDS;
const placed = <P extends Placement>(placement: P) =>
  KINDS.filter((kind): kind is Extract<Entry, { placement: P }> => kind.placement === placement);

export const TOP_LEVEL_KINDS = placed('top-level');
export const ITEM_KINDS = placed('item');
export const [FOLDER_KIND] = placed('folder');
/** The kinds that keep history, in the order their routes are mounted: items, folders, top-level. */
export const HISTORY_KINDS: readonly Kind<HistoryKind>[] = [
  ...ITEM_KINDS,
  FOLDER_KIND,
  ...TOP_LEVEL_KINDS,
];
/** The kinds placed in a collection (what a collection's access governs). */
export const CONTAINED_KINDS: readonly Kind<HistoryKind>[] = [FOLDER_KIND, ...ITEM_KINDS];

/** What other plugins know of a kind things attach to (discussions mount their routes by it). */
export interface TargetKind {
  /** The kind's name, as a target's `entityType` spells it. */
  name: TargetType;
  /** The API's path segment: `/<prefix>/:id/discussions`. */
  prefix: string;
  noun: string;
}

/** The kinds something can be attached to (discussions, notices, MLS groups), registry order. */
export const TARGET_KINDS: readonly TargetKind[] = entries.flatMap((kind) =>
  kind.target ? [{ name: kind.name as TargetType, prefix: kind.prefix, noun: kind.noun }] : [],
);

/** The kinds something can be attached to, in the spelling the API uses. */
export const TARGET_TYPES = TARGET_KINDS.map((kind) => kind.name);

/** The entry of the kind named `name`. */
export const kind = <N extends KindName>(name: N) =>
  KINDS.find((entry) => entry.name === name) as Extract<Entry, { name: N }>;

/** The collection kind's access list, which also governs what sits in a collection. */
export const COLLECTION_ACCESS: EntityAccessField = kind('collection').field;

/** What other plugins may know of a kind (the plugin's face exports {@link RECORD_KINDS}). */
export interface RecordKind {
  name: KindName;
  prefix: string;
  noun: string;
  placement: Placement;
  history: boolean;
  /** A top-level kind's access list, and the key its lists answer under. */
  access?: { field: EntityAccessField; listKey: string };
}

export const RECORD_KINDS: readonly RecordKind[] = KINDS.map((kind) => ({
  name: kind.name,
  prefix: kind.prefix,
  noun: kind.noun,
  placement: kind.placement,
  history: kind.history,
  ...('listKey' in kind ? { access: { field: kind.field, listKey: kind.listKey } } : {}),
}));

/** The entry of the kind named `name`, or undefined for a name the registry does not have. */
export function kindNamed(name: string): Kind | undefined {
  return entries.find((kind) => kind.name === name);
}
