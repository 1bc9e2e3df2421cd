/**
 * API docs of the entity routes. The routes are mounted per kind (top-level kinds, collection item
 * kinds), so their docs are made per kind too: answers are the kinds' record schemas (records.ts),
 * request bodies come from the kinds' validators.
 */
import { z } from 'zod';
import type { OperationDoc, RouteDocs } from '../../../kernel/http/openapi.ts';
import { historyDocs } from '../history/api.ts';
import { historySubjects } from '../history/subjects.ts';
import type { AnyItemKind, TopLevelKind } from '../kinds/index.ts';
import { adminSummary, folderRecord, runResultDetail, runResultRecord } from '../records.ts';
import { runResultUsageRecord } from '../run-results/usage.ts';

const IF_MATCH =
  'Every write answer carries the record\'s new version as `ETag`. With `If-Match: "<version>"`, ' +
  'a record that has changed since is left alone: 412 with `current`, the record as it is now. ' +
  'An `If-Match` that is neither `*` nor entity tags gets 400.';

const BUDGET =
  '409 when the history of the caller (`history.maxBytesPerUser`) or of the tenant ' +
  '(`history.maxBytesPerTenant`) has used its budget.';

function topLevelDocs(kind: TopLevelKind): RouteDocs {
  const { record, noun } = kind;
  const list = (item: z.ZodType) => z.object({ [kind.listKey]: z.array(item) });
  const adminItem = kind.admin?.fullRecords ? record : adminSummary;
  const docs: RouteDocs = {
    [`GET /${kind.prefix}`]: {
      summary: `List the ${noun}s the caller may use`,
      responses: { 200: list(record), 304: null },
    },
    [`POST /${kind.prefix}`]: {
      summary: `Create a ${noun} (needs \`*\` in the access list)`,
      description: BUDGET,
      errors: [403, 409],
      responses: { 200: record },
    },
    [`PUT /${kind.prefix}/:id`]: {
      summary: `Update a ${noun} (omitted fields keep their value)`,
      description: `${IF_MATCH} ${BUDGET}`,
      errors: [400, 403, 409, 412],
      responses: { 200: record },
    },
    [`DELETE /${kind.prefix}/:id`]: {
      summary: `Delete a ${noun}${kind.cascade || kind.container ? ' and what depends on it' : ''}`,
      description: `Refused (403) while deletion is locked${kind.creatorOnlyDelete ? ', or when the caller did not create it' : ''}. ${IF_MATCH}`,
      errors: [400, 403, 412],
      responses: { 204: null },
    },
    [`GET /admin/${kind.prefix}`]: {
      summary: `List every ${noun}`,
      responses: { 200: list(adminItem) },
    },
    [`PUT /admin/${kind.prefix}/:id`]: {
      summary: kind.admin
        ? `Edit a ${noun} or toggle its deletion lock`
        : `Toggle a ${noun}'s deletion lock`,
      description: BUDGET,
      errors: [409],
      responses: { 200: adminItem },
    },
    [`DELETE /admin/${kind.prefix}/:id`]: {
      summary: `Delete a ${noun} regardless of its lock and creator`,
      responses: { 204: null },
    },
  };
  if (kind.admin?.create)
    docs[`POST /admin/${kind.prefix}`] = {
      summary: `Create a ${noun}`,
      description: BUDGET,
      errors: [409],
      responses: { 201: record },
    };
  return docs;
}

function itemDocs({ prefix: segment, noun, record, idsKey }: AnyItemKind): RouteDocs {
  const list = z.object({ [segment]: z.array(record) });
  const access: OperationDoc['errors'] = [403];
  return {
    [`GET /collections/:collectionId/${segment}`]: {
      summary: `List a collection's ${noun}s`,
      errors: access,
      responses: { 200: list, 304: null },
    },
    [`POST /collections/:collectionId/${segment}`]: {
      summary: `Create a ${noun} (last in its folder)`,
      description: BUDGET,
      errors: [403, 409],
      responses: { 200: record },
    },
    [`GET /${segment}/:id`]: {
      summary: `A ${noun}, with its version as \`ETag\``,
      errors: access,
      responses: { 200: record },
    },
    [`PUT /${segment}/:id`]: {
      summary: `Update a ${noun} (omitted fields keep their value)`,
      description: `${IF_MATCH} ${BUDGET}`,
      errors: [400, 403, 409, 412],
      responses: { 200: record },
    },
    [`DELETE /${segment}/:id`]: {
      summary: `Delete a ${noun} (its creator only)`,
      description: IF_MATCH,
      errors: [400, 403, 412],
      responses: { 204: null },
    },
    [`PUT /collections/:collectionId/${segment}/reorder`]: {
      summary: `Reorder the ${noun}s of one folder (\`${idsKey}\` lists every one of them)`,
      errors: access,
      responses: { 204: null },
    },
    [`PUT /${segment}/:id/move`]: {
      summary: `Move a ${noun} to a folder at an index`,
      description: BUDGET,
      errors: [403, 409],
      responses: { 204: null },
    },
    [`GET /admin/collections/:collectionId/${segment}`]: {
      summary: `List a collection's ${noun}s`,
      responses: { 200: list },
    },
    [`DELETE /admin/${segment}/:id`]: { summary: `Delete any ${noun}`, responses: { 204: null } },
  };
}

export function entitiesApi(
  kinds: readonly TopLevelKind[],
  items: readonly AnyItemKind[],
): RouteDocs {
  const folders = z.object({ folders: z.array(folderRecord) });
  return {
    ...Object.assign({}, ...kinds.map(topLevelDocs)),
    'GET /collections/:collectionId/folders': {
      summary: "List a collection's folders",
      errors: [403],
      responses: { 200: folders },
    },
    'POST /collections/:collectionId/folders': {
      summary: 'Create a folder (last among its siblings)',
      description: BUDGET,
      errors: [403, 409],
      responses: { 200: folderRecord },
    },
    'PATCH /folders/:id': {
      summary: 'Rename a folder or change its marker',
      description: `${IF_MATCH} ${BUDGET}`,
      errors: [400, 403, 409, 412],
      responses: { 200: folderRecord },
    },
    'DELETE /folders/:id': {
      summary: 'Delete a folder and everything inside it',
      description: `Restoring the folder's deletion revision brings everything back. ${IF_MATCH}`,
      errors: [400, 403, 412],
      responses: { 204: null },
    },
    'PUT /collections/:collectionId/folders/reorder': {
      summary: 'Reorder the folders of one parent',
      errors: [403],
      responses: { 204: null },
    },
    'PUT /folders/:id/move': {
      summary: 'Move a folder under another parent at an index (never into itself)',
      description: BUDGET,
      errors: [403, 409],
      responses: { 200: folderRecord },
    },
    'GET /admin/collections/:collectionId/folders': {
      summary: "List a collection's folders",
      responses: { 200: folders },
    },
    ...Object.assign({}, ...items.map(itemDocs)),
    'GET /run-results': {
      summary: 'List the run results the caller may read (newest first)',
      responses: { 200: z.object({ runResults: z.array(runResultRecord) }) },
    },
    'POST /run-results': {
      summary:
        'Store a run result (a desktop export); 409 naming the limit when the caller already keeps ' +
        'runResults.maxPerUser results or runResults.maxBytesPerUser bytes of them',
      errors: [403, 409],
      responses: { 200: runResultDetail },
    },
    'GET /run-results/:id': {
      summary: 'A run result with its payload',
      errors: [403],
      responses: { 200: runResultDetail },
    },
    'DELETE /run-results/:id': {
      summary: 'Delete a run result (its creator only)',
      errors: [403],
      responses: { 204: null },
    },
    'GET /admin/run-results': {
      summary: 'List every run result',
      responses: { 200: z.object({ runResults: z.array(runResultRecord) }) },
    },
    'GET /admin/run-results/:id': {
      summary: 'Any run result with its payload',
      responses: { 200: runResultDetail },
    },
    'DELETE /admin/run-results/:id': { summary: 'Delete any run result', responses: { 204: null } },
    ...historyDocs(historySubjects),
    'GET /admin/run-results/usage': {
      summary: "Several users' stored run results (count and bytes) against the configured limits",
      description:
        "In the order asked; a user who stored nothing (or does not exist) has 0 and 0. One read for them all, where `GET /admin/users/:id/run-results/usage` is one user's.",
      responses: { 200: z.object({ users: z.array(runResultUsageRecord) }) },
    },
    'GET /admin/users/:id/run-results/usage': {
      summary: "A user's stored run results (count and bytes) against the configured limits",
      errors: [404],
      responses: { 200: runResultUsageRecord },
    },
  };
}
