/**
 * What every entry of the kind registry (index.ts) says about its kind, whatever its placement.
 * Top-level kinds (top-level.ts) and item kinds (item.ts) add what their routes need.
 */
import type { z } from 'zod';
import type { EntityAccessField } from '../../../kernel/identity/access.ts';
import type { Columns, Table } from '../../../kernel/storage/table.ts';

/**
 * Where a record sits: on its own, under an access list (`top-level`); in a collection, nested
 * through `parentFolderId` (`folder`); in a folder of a collection or at its root (`item`); or
 * as an uploaded run (`run`).
 */
export type Placement = 'top-level' | 'folder' | 'item' | 'run';

/** What a target (targets.ts) carries besides its kind and id, as its kind knows it. */
export interface TargetFields {
  /** The collection that governs access, or null for a run result outside any hub collection. */
  collectionId: string | null;
  folderId?: string | null;
  requestId?: string | null;
  runResultId?: string | null;
  /** Who made the target (notified of new threads on it), when known. */
  creatorUserId: string | null;
  /** A human name for notices: the record's name, or the run's label. */
  label: string;
  /** For request targets: the HTTP method, shown beside the name. */
  method?: string;
}

/** What a registry entry names, whatever its placement. */
export interface KindIdentity {
  /**
   * The kind's one name: in revisions and the trash (stored), the audit log (`<name>.<action>`),
   * `entities.deleted` and targets.
   */
  name: string;
  /** The API's path segment: `/<prefix>/:id`, `/admin/<prefix>`, `/<prefix>/:id/revisions`. */
  prefix: string;
  /** The kind in messages and route summaries, e.g. `saved request`. */
  noun: string;
  /** The 404 message, e.g. `Request not found`. */
  notFound: string;
  table: Table<Columns>;
  /** The record schema (records.ts): the answer, documented in /openapi.json. */
  record: z.ZodType;
  toRecord(row: any): object;
  /**
   * The access list naming the records a user may use (top-level kinds); without one, access is
   * the collection's (and a run result's also its creator's).
   */
  field?: EntityAccessField;
  /** Only its creator may delete one through the data API. */
  creatorOnlyDelete?: boolean;
  /** Deleting one removes the folders and items inside it (routes/contents.ts). */
  container?: boolean;
  /** Other features attach things to records of this kind (targets.ts): what a target carries. */
  target?(row: any): TargetFields;
}

export interface KindEntry extends KindIdentity {
  placement: Placement;
  /** Every change writes a revision (history/), and a deleted record can be restored. */
  history: boolean;
}
