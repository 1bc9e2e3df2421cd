/**
 * Top-level kinds (collections, environments, snippets, live servers, live pages): what the
 * registry (index.ts) says of one — its identity, with its list key and access list — and its
 * behaviour, in the kind's own file: bodies, how a row is built and patched, its listing order,
 * what else its delete changes, and its admin edit (joined in behaviours.ts). The shared routes
 * (routes/top-level.ts) serve every one of them.
 */
import type { z } from 'zod';
import type { EntityAccessField } from '../../../kernel/identity/access.ts';
import type { UserRow } from '../../../kernel/identity/tables.ts';
import type { Store } from '../../../kernel/storage/contract.ts';
import type { Columns, RowOfTable, Table } from '../../../kernel/storage/table.ts';
import type { TopLevelColumns } from '../tables.ts';
import type { KindIdentity } from './kind.ts';

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

/** A top-level table: the columns the shared routes use, typed, and the kind's own columns. */
export type TopLevelTable = Table<TopLevelColumns & Columns>;

/** What the registry says of a top-level kind. */
export interface TopLevelIdentity extends KindIdentity {
  /** List wrapper key, e.g. `liveServers`. */
  listKey: string;
  table: TopLevelTable;
  field: EntityAccessField;
}

/** How a top-level kind's rows are written: in the kind's own file. */
export interface TopLevelBehaviour<Row, Create, Update, AdminUpdate = { deletionLocked: boolean }> {
  /** Listing order. */
  compare(a: Row, b: Row): number;
  createBody: z.ZodType<Create>;
  updateBody: z.ZodType<Update>;
  /** Builds the new row (may read, e.g. sibling order); the caller inserts it. */
  create(input: Create, ctx: WriteContext & { id: string }): Promise<Row>;
  /** The columns an update changes (may read, never write). */
  update(row: Row, input: Update, ctx: WriteContext): Promise<Partial<Row>>;
  /** What else a delete changes, inside its transaction (all reads before writes). */
  cascade?(tx: Store, row: Row): Promise<void>;
  admin?: {
    /** List full records rather than `{id, name, deletionLocked}` (snippets, for the desktop). */
    fullRecords?: boolean;
    /** Also mount `POST /admin/<kind>` (201), which the desktop uses for snippets. */
    create?: boolean;
    updateBody: z.ZodType<AdminUpdate>;
    patch(row: Row, input: AdminUpdate, ctx: WriteContext): Promise<Partial<Row>>;
  };
}

/** Identity helper that type-checks a kind's callbacks against its row and bodies. */
export function defineBehaviour<
  Row extends TopLevelRow,
  Create,
  Update,
  AdminUpdate = { deletionLocked: boolean },
>(
  behaviour: TopLevelBehaviour<Row, Create, Update, AdminUpdate>,
): TopLevelBehaviour<Row, Create, Update, AdminUpdate> {
  return behaviour;
}

/** A kind as the shared routes hold it: they read only the typed top-level columns of its rows. */
export type AnyTopLevelKind = TopLevelIdentity &
  TopLevelBehaviour<any, any, any, any> & { placement: 'top-level'; history: true };

/** The registry entry of a top-level kind; its behaviour joins it in behaviours.ts. */
export function topLevelKind<const I extends TopLevelIdentity>(identity: I) {
  return { ...identity, placement: 'top-level' as const, history: true as const };
}

export const rowsOf = (store: Store, kind: AnyTopLevelKind) => store.table(kind.table);
export type AnyTopLevelRow = RowOfTable<TopLevelTable>;
