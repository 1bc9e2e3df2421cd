/**
 * Rows → API records. Each record lists its fields explicitly, so a column added later never leaks
 * into responses by accident, and every field the desktop client validates is always present.
 */
import type {
  CollectionRow,
  DocumentRow,
  EnvironmentRow,
  FolderRow,
  RequestRow,
  SnippetRow,
} from './tables.ts';

const attribution = (row: {
  createdAt: string;
  updatedAt: string;
  createdByUserId: string | null;
  updatedByUserId: string | null;
}) => ({
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
  createdByUserId: row.createdByUserId,
  updatedByUserId: row.updatedByUserId,
});

export function toCollectionRecord(row: CollectionRow) {
  return {
    id: row.id,
    name: row.name,
    variables: row.variables,
    headers: row.headers,
    auth: row.auth,
    preRequestScript: row.preRequestScript,
    postRequestScript: row.postRequestScript,
    ...attribution(row),
    deletionLocked: row.deletionLocked,
    marker: row.marker,
  };
}

export function toEnvironmentRecord(row: EnvironmentRow) {
  return {
    id: row.id,
    name: row.name,
    variables: row.variables,
    parentUuid: row.parentUuid,
    ...attribution(row),
    deletionLocked: row.deletionLocked,
    marker: row.marker,
  };
}

export function toSnippetRecord(row: SnippetRow) {
  return {
    id: row.id,
    name: row.name,
    code: row.code,
    scope: row.scope,
    sortOrder: row.sortOrder,
    ...attribution(row),
    deletionLocked: row.deletionLocked,
  };
}

export function toFolderRecord(row: FolderRow) {
  return {
    id: row.id,
    collectionId: row.collectionId,
    parentFolderId: row.parentFolderId,
    name: row.name,
    sortOrder: row.sortOrder,
    ...attribution(row),
    marker: row.marker,
  };
}

export function toRequestRecord(row: RequestRow) {
  return {
    id: row.id,
    collectionId: row.collectionId,
    folderId: row.folderId,
    name: row.name,
    protocol: row.protocol,
    method: row.method,
    url: row.url,
    headers: row.headers,
    params: row.params,
    auth: row.auth,
    body: row.body,
    bodyType: row.bodyType,
    preRequestScript: row.preRequestScript,
    postRequestScript: row.postRequestScript,
    comment: row.comment,
    sortOrder: row.sortOrder,
    ...attribution(row),
    marker: row.marker,
  };
}

export function toDocumentRecord(row: DocumentRow) {
  return {
    id: row.id,
    collectionId: row.collectionId,
    folderId: row.folderId,
    name: row.name,
    content: row.content,
    sortOrder: row.sortOrder,
    ...attribution(row),
    marker: row.marker,
  };
}

/** What admin listings show of a top-level entity. */
export function toAdminSummary(row: { id: string; name: string; deletionLocked: boolean }) {
  return { id: row.id, name: row.name, deletionLocked: row.deletionLocked };
}
