/**
 * Collections: the top-level container of folders, saved requests and documents. Only the creator
 * may delete one through the data API, and only while it is unlocked; deleting it removes
 * everything inside it in the same transaction.
 */
import { z } from 'zod';
import type { Store } from '../../../kernel/storage/contract.ts';
import { created } from '../access.ts';
import { compareNames } from '../ordering.ts';
import { collectionRecord, SERVER_OWNED, toCollectionRecord } from '../records.ts';
import { definedOnly, markerSchema, nameSchema, optionalFields } from '../schemas.ts';
import {
  collectionsTable,
  documentsTable,
  foldersTable,
  requestsTable,
  type CollectionRow,
} from '../tables.ts';
import { defineTopLevelKind, type DeletedRecorder, type Removed } from './top-level.ts';

/** The settings a client writes, from the record: defaults on create, all optional on update. */
const settings = collectionRecord.omit({
  ...SERVER_OWNED,
  name: true,
  deletionLocked: true,
  marker: true,
}).shape;

/** `POST /collections`: a name, and optionally any settings (handy for imports). */
const createBody = z.object({ name: nameSchema, ...settings, marker: markerSchema.optional() });
/** `PUT /collections/:id`: fields that are omitted keep their value. */
const updateBody = z.object({
  name: nameSchema.optional(),
  ...optionalFields(settings),
  marker: markerSchema.optional(),
});

/**
 * Removes every folder, request and document of a collection, recording their `deleted`
 * revisions; returns their ids.
 */
export async function removeCollectionContents(
  tx: Store,
  collectionId: string,
  deleted: DeletedRecorder,
): Promise<Removed> {
  const where = { collectionId };
  // Reads first, then writes (the storage contract's rule for transactions).
  const folders = await tx.table(foldersTable).find({ where });
  const requests = await tx.table(requestsTable).find({ where });
  const documents = await tx.table(documentsTable).find({ where });
  await tx.table(documentsTable).deleteWhere(where);
  await tx.table(requestsTable).deleteWhere(where);
  await tx.table(foldersTable).deleteWhere(where);
  await deleted('folder', folders);
  await deleted('request', requests);
  await deleted('document', documents);
  return {
    folder: folders.map((row) => row.id),
    request: requests.map((row) => row.id),
    document: documents.map((row) => row.id),
  };
}

export const collectionsKind = defineTopLevelKind<
  CollectionRow,
  z.output<typeof createBody>,
  z.output<typeof updateBody>
>({
  path: '/collections',
  listKey: 'collections',
  table: collectionsTable,
  field: 'collectionAccess',
  noun: 'collection',
  deletedKind: 'collection',
  notFound: 'Collection not found',
  compare: compareNames,
  createBody,
  updateBody,
  async create(input, { user, now, id }) {
    return {
      id,
      ...input,
      deletionLocked: false,
      marker: input.marker ?? null,
      ...created(user, now),
    };
  },
  async update(_row, input) {
    return definedOnly(input);
  },
  toRecord: toCollectionRecord,
  record: collectionRecord,
  creatorOnlyDelete: true,
  cascade: (tx, row, deleted) => removeCollectionContents(tx, row.id, deleted),
});
