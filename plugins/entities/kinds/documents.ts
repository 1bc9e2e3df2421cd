/** Collection documents (markdown files), on the shared collection-item routes. */
import { defineItemKind } from './item.ts';
import { documentRecord, toDocumentRecord } from '../records.ts';
import { documentsTable } from '../tables.ts';

export const documentsKind = defineItemKind({
  segment: 'documents',
  noun: 'document',
  idsKey: 'orderedDocumentIds',
  table: documentsTable,
  deletedKind: 'document',
  notFound: 'Document not found',
  record: documentRecord,
  toRecord: toDocumentRecord,
});
