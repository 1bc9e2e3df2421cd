/** API docs of the history routes (revisions.ts): one set per kind that keeps revisions. */
import { z } from 'zod';
import type { RouteDocs } from '../../../kernel/http/openapi.ts';
import type { HistorySubject } from './subjects.ts';
import { revisionRecord } from './revisions.ts';
import { trashItem } from './trash.ts';

const ACCESS =
  'Access is checked like the record itself (for a deleted record, like its collection or its ' +
  "kind's access list)";
const WRITTEN_IN =
  ', and a revision of a folder, saved request or document also by the collection it was written ' +
  'in (a record moved in from another collection keeps what was written there from readers who ' +
  'cannot use that collection).';

export function historyDocs(subjects: readonly HistorySubject[]): RouteDocs {
  const docs: RouteDocs = {};
  for (const { prefix, noun, toRecord: _ignored, ...subject } of subjects) {
    const record = z.record(z.string(), z.unknown()).describe(`The ${noun} record`);
    const base = `/${prefix}/:id/revisions`;
    const topLevel = subject.placement === 'top-level';
    docs[`GET ${base}`] = {
      summary: `List a ${noun}'s revisions, newest first`,
      description: `${ACCESS}${WRITTEN_IN} \`nextCursor\`, when present, asks for the next page.`,
      errors: [403],
      responses: {
        200: z.object({ revisions: z.array(revisionRecord), nextCursor: z.string().optional() }),
      },
    };
    docs[`GET ${base}/:revisionId`] = {
      summary: `One revision of a ${noun}, with the record as it was after that change (before it, for a deletion)`,
      description: `${ACCESS}${WRITTEN_IN} Each read is in the audit log (\`revision.read\`).`,
      errors: [403],
      responses: { 200: z.object({ revision: revisionRecord, record }) },
    };
    docs[`POST ${base}/:revisionId/restore`] = {
      summary: `Restore a ${noun} to a revision (itself recorded as a \`restored\` revision)`,
      description:
        `${ACCESS}${WRITTEN_IN} An existing ${noun} gets the revision's content back and stays where it is; ` +
        `a deleted one comes back with the same id${topLevel ? '' : ' into its folder if that still exists, else the collection root (409 when its collection is gone)'}` +
        `${subject.placement === 'folder' || subject.container ? ', with what its deletion removed' : ''}, ` +
        'with the deletion lock it had when deleted. Undoing a deletion made by an admin (or the ' +
        'command line) takes an admin' +
        (topLevel
          ? `; otherwise it takes the right to create a ${noun} (access to all of them) or to delete this one (it was not locked${subject.creatorOnlyDelete ? ', and the caller created it' : ''})`
          : '') +
        '. 409 when the record was deleted or restored by another request since (of several ' +
        'clients undoing one deletion at once, one succeeds), and when the history budget is ' +
        'spent (`history.maxBytesPerUser`, ' +
        '`history.maxBytesPerTenant`). The answer carries the new `ETag`.',
      errors: [403, 409],
      responses: { 200: record },
    };
    docs[`DELETE /admin/${prefix}/:id/revisions`] = {
      summary: `Purge a ${noun}'s history`,
      description:
        `Removes every revision of the ${noun} (their audit events stay, without the content), ` +
        'for the day a secret leaks into it; a deleted one leaves the trash for good' +
        `${subject.placement === 'folder' || subject.container ? ', with what its deletion removed' : ''}. ` +
        'The live record is left as it is. Audited as `history.purged`.',
      responses: {
        200: z.object({ purged: z.number().int().describe('Revisions removed') }),
      },
    };
  }
  docs['GET /collections/:id/trash'] = {
    summary:
      'The folders, saved requests and documents deleted from a collection that can be restored',
    description:
      'Newest first; what a folder took with it is not listed, as it comes back with the folder. ' +
      '`nextCursor`, when present, asks for the next page.',
    errors: [403],
    responses: {
      200: z.object({ items: z.array(trashItem), nextCursor: z.string().optional() }),
    },
  };
  return docs;
}
