/**
 * The records: one zod schema per kind of record, the single description of what the API answers.
 * The schema's key order is the JSON answer's key order; a field a client may write carries its
 * create default here. From each schema follow the row → record mapper (below), the request bodies
 * (the record `.omit`s what the hub owns, in the kind's file or kinds/item.ts; `optionalFields` makes
 * the update body) and the documented answer (routes/api.ts, through the kind's `record`). A mapper is
 * typed against its table's row, so a record field without a column of its type fails to compile.
 */
import { z } from 'zod';
import {
  authSchema,
  bodyTypeSchema,
  keyValueSchema,
  listOf,
  methodSchema,
  protocolSchema,
  snippetScopeSchema,
  variableSchema,
} from './schemas.ts';
import type {
  CollectionRow,
  DocumentRow,
  EnvironmentRow,
  FolderRow,
  RequestRow,
  RunResultRow,
  SnippetRow,
} from './tables.ts';

export const attribution = {
  createdAt: z.string(),
  updatedAt: z.string(),
  createdByUserId: z.string().nullable(),
  updatedByUserId: z.string().nullable(),
};
/** The record fields no request body sets: ids and attribution are the hub's. */
export const SERVER_OWNED = {
  id: true,
  createdAt: true,
  updatedAt: true,
  createdByUserId: true,
  updatedByUserId: true,
} as const;

const marker = z.string().nullable();

export const collectionRecord = z
  .object({
    id: z.string(),
    name: z.string(),
    variables: listOf(variableSchema).default(() => []),
    headers: listOf(keyValueSchema).default(() => []),
    auth: authSchema.prefault({}),
    preRequestScript: z.string().default(''),
    postRequestScript: z.string().default(''),
    ...attribution,
    deletionLocked: z.boolean(),
    marker,
  })
  .meta({ id: 'Collection' });

export const environmentRecord = z
  .object({
    id: z.string(),
    name: z.string(),
    variables: listOf(variableSchema).default(() => []),
    parentUuid: z.string().nullable(),
    ...attribution,
    deletionLocked: z.boolean(),
    marker,
  })
  .meta({ id: 'Environment' });

export const snippetRecord = z
  .object({
    id: z.string(),
    name: z.string(),
    code: z.string().default(''),
    scope: snippetScopeSchema.default('any'),
    sortOrder: z.number().int(),
    ...attribution,
    deletionLocked: z.boolean(),
  })
  .meta({ id: 'Snippet' });

export const folderRecord = z
  .object({
    id: z.string(),
    collectionId: z.string(),
    parentFolderId: z.string().nullable(),
    name: z.string(),
    sortOrder: z.number().int(),
    ...attribution,
    marker,
  })
  .meta({ id: 'Folder' });

/** The fields every collection item (saved request, document) has, with rules of their own. */
export const ITEM_OWNED = {
  ...SERVER_OWNED,
  collectionId: true,
  folderId: true,
  name: true,
  sortOrder: true,
  marker: true,
} as const;

export const requestRecord = z
  .object({
    id: z.string(),
    collectionId: z.string(),
    folderId: z.string().nullable(),
    name: z.string(),
    protocol: protocolSchema.default('http'),
    method: methodSchema.default('GET'),
    url: z.string().default(''),
    headers: listOf(keyValueSchema).default(() => []),
    params: listOf(keyValueSchema).default(() => []),
    auth: authSchema.prefault({}),
    body: z.string().default(''),
    bodyType: bodyTypeSchema.default('none'),
    preRequestScript: z.string().default(''),
    postRequestScript: z.string().default(''),
    comment: z.string().default(''),
    sortOrder: z.number().int(),
    ...attribution,
    marker,
  })
  .meta({ id: 'SavedRequest' });

export const documentRecord = z
  .object({
    id: z.string(),
    collectionId: z.string(),
    folderId: z.string().nullable(),
    name: z.string(),
    content: z.string().default('').describe('Markdown'),
    sortOrder: z.number().int(),
    ...attribution,
    marker,
  })
  .meta({ id: 'Document' });

/** What admin listings show of a top-level entity. */
export const adminSummary = z
  .object({ id: z.string(), name: z.string(), deletionLocked: z.boolean() })
  .meta({ id: 'AdminSummary' });

export const runResultRecord = z
  .object({
    id: z.string(),
    kind: z.string(),
    label: z.string().nullable(),
    collectionName: z.string().nullable(),
    requestName: z.string().nullable(),
    summary: z.object({
      passed: z.number().int(),
      failed: z.number().int(),
      skipped: z.number().int(),
    }),
    createdAt: z.string(),
    createdByUserId: z.string().nullable(),
  })
  .meta({ id: 'RunResult' });
export const runResultDetail = runResultRecord
  .extend({ payload: z.record(z.string(), z.unknown()) })
  .meta({ id: 'RunResultDetail' });

/**
 * The mapper of a record schema: copies the schema's fields from a row, in the schema's order, and
 * nothing else, so a column added later never leaks into answers by accident. No parsing: rows
 * were validated on the way in.
 */
export function recordMapper<S extends z.ZodObject>(schema: S) {
  const keys = Object.keys(schema.shape);
  return (row: z.output<S>): z.output<S> => {
    const record: Record<string, unknown> = {};
    for (const key of keys) record[key] = (row as Record<string, unknown>)[key];
    return record as z.output<S>;
  };
}

// Each mapper's parameter is its table's row: tsc checks the row carries every record field.
export const toCollectionRecord: (row: CollectionRow) => object = recordMapper(collectionRecord);
export const toEnvironmentRecord: (row: EnvironmentRow) => object = recordMapper(environmentRecord);
export const toSnippetRecord: (row: SnippetRow) => object = recordMapper(snippetRecord);
export const toFolderRecord: (row: FolderRow) => object = recordMapper(folderRecord);
export const toRequestRecord: (row: RequestRow) => object = recordMapper(requestRecord);
export const toDocumentRecord: (row: DocumentRow) => object = recordMapper(documentRecord);
export const toAdminSummary: (row: {
  id: string;
  name: string;
  deletionLocked: boolean;
}) => object = recordMapper(adminSummary);

/** A run's summary columns make one `summary` object, so this mapper is written out. */
export const toRunResultRecord = (row: RunResultRow): z.output<typeof runResultRecord> => ({
  id: row.id,
  kind: row.kind,
  label: row.label,
  collectionName: row.collectionName,
  requestName: row.requestName,
  summary: { passed: row.summaryPassed, failed: row.summaryFailed, skipped: row.summarySkipped },
  createdAt: row.createdAt,
  createdByUserId: row.createdByUserId,
});

export const toRunResultDetail = (row: RunResultRow): z.output<typeof runResultDetail> => ({
  ...toRunResultRecord(row),
  payload: row.payload,
});
