/**
 * What a top-level kind (collections, environments, snippets, live servers, live pages) tells the
 * shared routes in top-level.ts: its table, bodies, how a row is built and patched, its record,
 * and what its delete removes with it.
 */
import type { z } from 'zod';
import type { EntityAccessField } from '../../../kernel/identity/access.ts';
import type { UserRow } from '../../../kernel/identity/tables.ts';
import type { Store } from '../../../kernel/storage/contract.ts';
import type { Columns, RowOfTable, Table } from '../../../kernel/storage/table.ts';
import type { DeletedKind } from '../access.ts';
import type { VersionedRow } from '../history/record.ts';
import type { HistoryKind, TopLevelColumns } from '../tables.ts';

/** Columns every top-level row has. */
export interface TopLevelRow {
  id: string;
  name: string;
  deletionLocked: boolean;
  createdAt: string;
  updatedAt: string;
  createdByUserId: string | null;
  updatedByUserId: string | null;
  version: number;
}

export interface WriteContext {
  tx: Store;
  user: UserRow;
  /** The write's timestamp. */
  now: string;
}

export type Removed = Partial<Record<DeletedKind, string[]>>;

export interface TopLevelKind<
  Row extends TopLevelRow,
  Create,
  Update,
  AdminUpdate = { deletionLocked: boolean },
> {
  /** Route path, e.g. `/live-servers`; the admin routes live under `/admin` + path. */
  path: string;
  /** List wrapper key, e.g. `liveServers`. */
  listKey: string;
  table: TopLevelTable;
  field: EntityAccessField;
  /** The noun in `Deletion is locked for this <noun>.` */
  noun: string;
  deletedKind: DeletedKind;
  /** 404 message, e.g. `Live server not found`. */
  notFound: string;
  /** Listing order. */
  compare(a: Row, b: Row): number;
  createBody: z.ZodType<Create>;
  updateBody: z.ZodType<Update>;
  /** Builds the new row (may read, e.g. sibling order); the caller inserts it. */
  create(input: Create, ctx: WriteContext & { id: string }): Promise<Row>;
  /** The columns an update changes (may read, never write). */
  update(row: Row, input: Update, ctx: WriteContext): Promise<Partial<Row>>;
  toRecord(row: Row): object;
  /** The record schema (records.ts): what `toRecord` answers, in /openapi.json. */
  record: z.ZodType;
  /** Only the creator may delete through the data API (collections). */
  creatorOnlyDelete?: boolean;
  /**
   * Removes what depends on the row, inside the delete's transaction (all reads before writes);
   * `deleted` records the removed records' `deleted` revisions (caused by this row).
   */
  cascade?(tx: Store, row: Row, deleted: DeletedRecorder): Promise<Removed>;
  admin?: {
    /** List full records rather than `{id, name, deletionLocked}` (snippets, for the desktop). */
    fullRecords?: boolean;
    /** Also mount `POST /admin/<kind>` (201), which the desktop uses for snippets. */
    create?: boolean;
    updateBody: z.ZodType<AdminUpdate>;
    patch(row: Row, input: AdminUpdate, ctx: WriteContext): Promise<Partial<Row>>;
  };
}

/** Records `deleted` revisions of rows a cascade removes (before their removal, as they were). */
export type DeletedRecorder = (kind: HistoryKind, rows: readonly VersionedRow[]) => Promise<void>;

/** The history kind of each top-level kind. */
const HISTORY_KINDS: Partial<Record<DeletedKind, HistoryKind>> = {
  collection: 'collection',
  environment: 'environment',
  snippet: 'snippet',
  liveServer: 'live-server',
  livePage: 'live-page',
};
export const historyKindOf = (kind: AnyTopLevelKind): HistoryKind =>
  HISTORY_KINDS[kind.deletedKind]!;

/** Identity helper that type-checks a kind's callbacks against its row and bodies. */
export function defineTopLevelKind<
  Row extends TopLevelRow,
  Create,
  Update,
  AdminUpdate = { deletionLocked: boolean },
>(
  kind: TopLevelKind<Row, Create, Update, AdminUpdate>,
): TopLevelKind<Row, Create, Update, AdminUpdate> {
  return kind;
}

/** A top-level table: the columns the shared routes use, typed, and the kind's own columns. */
export type TopLevelTable = Table<TopLevelColumns & Columns>;
/** A kind as the shared routes hold it: they read only the typed top-level columns of its rows. */
export type AnyTopLevelKind = TopLevelKind<any, any, any, any>;
export const rowsOf = (store: Store, kind: AnyTopLevelKind) => store.table(kind.table);
export type AnyTopLevelRow = RowOfTable<TopLevelTable>;
