/** Collection documents (markdown files), on the shared collection-item routes. */
import { z } from 'zod';
import { toDocumentRecord } from './records.ts';
import { idSchema, markerSchema, nameSchema } from './schemas.ts';
import { documentsTable, type DocumentRow } from './tables.ts';
import type { ItemKind } from './items.ts';

const placement = { folderId: idSchema.nullable().optional(), marker: markerSchema.optional() };

export const documentsKind: ItemKind<DocumentRow> = {
  segment: 'documents',
  idsKey: 'orderedDocumentIds',
  table: documentsTable,
  deletedKind: 'document',
  notFound: 'Document not found',
  createBody: z.object({ name: nameSchema, ...placement, content: z.string().default('') }),
  updateBody: z.object({
    collectionId: idSchema,
    name: nameSchema.optional(),
    ...placement,
    content: z.string().optional(),
  }),
  toRecord: toDocumentRecord,
};
