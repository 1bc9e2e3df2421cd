/**
 * Item kinds (saved requests, documents): what the registry (index.ts) says of one, for the shared
 * item routes (routes/items.ts). Its request bodies follow from the record: the placement fields
 * (`name`, `folderId`, `marker`, and `collectionId` on update) have rules of their own, every
 * other field a client writes comes from the record with its create default.
 */
import { z } from 'zod';
import type { Columns, RowOfTable, Table } from '../../../kernel/storage/table.ts';
import { ITEM_OWNED } from '../records.ts';
import { idSchema, markerSchema, nameSchema, optionalFields } from '../schemas.ts';
import type { ItemColumns } from '../tables.ts';
import type { KindIdentity } from './kind.ts';

/** An item table: the item columns, typed, and the kind's own columns. */
export type ItemTable = Table<ItemColumns & Columns>;
export type ItemRow = RowOfTable<ItemTable>;

const placement = { folderId: idSchema.nullable().optional(), marker: markerSchema.optional() };

/** `POST /collections/:collectionId/<prefix>` and `PUT /<prefix>/:id` bodies of a record. */
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

export interface ItemIdentity extends KindIdentity {
  /** Reorder body key, e.g. `orderedRequestIds`. */
  idsKey: string;
  table: ItemTable;
  /** The record schema: the answer, documented, and the source of the bodies. */
  record: z.ZodObject;
}

export type ItemKind = ItemIdentity &
  ReturnType<typeof itemBodies> & { placement: 'item'; history: true };

/** The registry entry of an item kind: its identity and the bodies its record gives. */
export function itemKind<const I extends ItemIdentity>(identity: I): I & ItemKind {
  return { ...identity, ...itemBodies(identity.record), placement: 'item', history: true };
}
