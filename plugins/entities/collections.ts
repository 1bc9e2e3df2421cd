/**
 * Collections: the top-level container of folders, saved requests and documents. Only the creator
 * may delete one through the data API, and only while it is unlocked; deleting it removes
 * everything inside it in the same transaction.
 */
import { z } from 'zod';
import type { Store } from '../../kernel/storage/contract.ts';
import { created } from './access.ts';
import { compareNames } from './ordering.ts';
import { toCollectionRecord } from './records.ts';
import {
  authSchema,
  definedOnly,
  defaultAuth,
  keyValueSchema,
  listOf,
  markerSchema,
  nameSchema,
  variableSchema,
} from './schemas.ts';
import {
  collectionsTable,
  documentsTable,
  foldersTable,
  requestsTable,
  type CollectionRow,
} from './tables.ts';
import { defineTopLevelKind, type Removed } from './top-level.ts';

const fields = {
  variables: listOf(variableSchema).optional(),
  headers: listOf(keyValueSchema).optional(),
  auth: authSchema.optional(),
  preRequestScript: z.string().optional(),
  postRequestScript: z.string().optional(),
  marker: markerSchema.optional(),
};

/** `POST /collections`: a name, and optionally any settings (handy for imports). */
const createBody = z.object({ name: nameSchema, ...fields });
/** `PUT /collections/:id`: fields that are omitted keep their value. */
const updateBody = z.object({ name: nameSchema.optional(), ...fields });

/** Removes every folder, request and document of a collection; returns their ids. */
export async function removeCollectionContents(tx: Store, collectionId: string): Promise<Removed> {
  const where = { collectionId };
  // Reads first, then writes (the storage contract's rule for transactions).
  const folders = await tx.table(foldersTable).find({ where });
  const requests = await tx.table(requestsTable).find({ where });
  const documents = await tx.table(documentsTable).find({ where });
  await tx.table(documentsTable).deleteWhere(where);
  await tx.table(requestsTable).deleteWhere(where);
  await tx.table(foldersTable).deleteWhere(where);
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
      name: input.name,
      variables: input.variables ?? [],
      headers: input.headers ?? [],
      auth: input.auth ?? defaultAuth(),
      preRequestScript: input.preRequestScript ?? '',
      postRequestScript: input.postRequestScript ?? '',
      deletionLocked: false,
      marker: input.marker ?? null,
      ...created(user, now),
    };
  },
  async update(_row, input) {
    return definedOnly(input);
  },
  toRecord: toCollectionRecord,
  creatorOnlyDelete: true,
  cascade: (tx, row) => removeCollectionContents(tx, row.id),
});
