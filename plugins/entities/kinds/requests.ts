/** Saved requests: the request fields the desktop stores, on the shared collection-item routes. */
import { defineItemKind } from './item.ts';
import { requestRecord, toRequestRecord } from '../records.ts';
import { requestsTable } from '../tables.ts';

export const requestsKind = defineItemKind({
  segment: 'requests',
  noun: 'saved request',
  idsKey: 'orderedRequestIds',
  table: requestsTable,
  deletedKind: 'request',
  notFound: 'Request not found',
  record: requestRecord,
  toRecord: toRequestRecord,
});
