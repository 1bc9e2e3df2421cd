/**
 * What a kind of collection item (saved requests, documents) tells the shared item routes in
 * items.ts: its table, its record schema, and names. Its request bodies follow from the record:
 * the placement fields (`name`, `folderId`, `marker`, and `collectionId` on update) have rules of
 * their own, every other field a client writes comes from the record with its create default.
 */
import { z } from 'zod';
import type { Columns, RowOfTable, Table } from '../../../kernel/storage/table.ts';
import { ITEM_OWNED } from '../records.ts';
import { idSchema, markerSchema, nameSchema, optionalFields } from '../schemas.ts';
import type { ItemColumns } from '../tables.ts';

/** An item table: the item columns, typed, and the kind's own columns. */
export type ItemTable = Table<ItemColumns & Columns>;
export type ItemRow = RowOfTable<ItemTable>;

const placement = { folderId: idSchema.nullable().optional(), marker: markerSchema.optional() };

/** `POST /collections/:collectionId/<segment>` and `PUT /<segment>/:id` bodies of a record. */
function itemBodies(record: z.ZodObject) {
  const content = record.omit(ITEM_OWNED).shape;
  return {
    /** Everything but the name has a default. */
    createBody: z.object({ name: nameSchema, ...placement, ...content }),
    /** `collectionId` is required; omitted fields keep their value (but see marker). */
    updateBody: z.object({
      collectionId: idSchema,
      name: nameSchema.optional(),
      ...placement,
      ...optionalFields(content),
    }),
  };
}

export interface ItemKindSpec {
  /** Path segment and list wrapper, e.g. `requests`. */
  segment: string;
  /** The kind in route summaries, e.g. `saved request`. */
  noun: string;
  /** Reorder body key, e.g. `orderedRequestIds`. */
  idsKey: string;
  table: ItemTable;
  deletedKind: 'request' | 'document';
  notFound: string;
  /** The record schema (records.ts): the answer, documented, and the source of the bodies. */
  record: z.ZodObject;
  /** The record's mapper, typed against the kind's own row. */
  toRecord(row: ItemRow): object;
}

export type ItemKind = ItemKindSpec & ReturnType<typeof itemBodies>;

export function defineItemKind(spec: ItemKindSpec): ItemKind {
  return { ...spec, ...itemBodies(spec.record) };
}
