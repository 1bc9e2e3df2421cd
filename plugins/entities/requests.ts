/** Saved requests: the request fields the desktop stores, on the shared collection-item routes. */
import { z } from 'zod';
import { toRequestRecord } from './records.ts';
import {
  authSchema,
  idSchema,
  keyValueSchema,
  listOf,
  markerSchema,
  nameSchema,
} from './schemas.ts';
import { requestsTable, type RequestRow } from './tables.ts';
import type { ItemKind } from './items.ts';

const protocol = z.enum(['http', 'sse']);
const method = z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);
const bodyType = z.enum(['none', 'json', 'text', 'multipart', 'urlencoded']);

const placement = { folderId: idSchema.nullable().optional(), marker: markerSchema.optional() };

/** `POST /collections/:collectionId/requests`: everything but the name has a default. */
const createBody = z.object({
  name: nameSchema,
  ...placement,
  protocol: protocol.default('http'),
  method: method.default('GET'),
  url: z.string().default(''),
  headers: listOf(keyValueSchema).default(() => []),
  params: listOf(keyValueSchema).default(() => []),
  auth: authSchema.prefault({}),
  body: z.string().default(''),
  bodyType: bodyType.default('none'),
  preRequestScript: z.string().default(''),
  postRequestScript: z.string().default(''),
  comment: z.string().default(''),
});

/** `PUT /requests/:id`: `collectionId` is required; omitted fields keep their value (but see marker). */
const updateBody = z.object({
  collectionId: idSchema,
  name: nameSchema.optional(),
  ...placement,
  protocol: protocol.optional(),
  method: method.optional(),
  url: z.string().optional(),
  headers: listOf(keyValueSchema).optional(),
  params: listOf(keyValueSchema).optional(),
  auth: authSchema.optional(),
  body: z.string().optional(),
  bodyType: bodyType.optional(),
  preRequestScript: z.string().optional(),
  postRequestScript: z.string().optional(),
  comment: z.string().optional(),
});

export const requestsKind: ItemKind<RequestRow> = {
  segment: 'requests',
  idsKey: 'orderedRequestIds',
  table: requestsTable,
  deletedKind: 'request',
  notFound: 'Request not found',
  createBody,
  updateBody,
  toRecord: toRequestRecord,
};
