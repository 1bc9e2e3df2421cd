/**
 * Snippets: reusable scripts, listed by `sortOrder` then name. A new snippet goes last; `PUT`
 * may move it by setting `sortOrder`. Admins may also create and edit snippets through
 * `/admin/snippets`, which the desktop's management screens use, and see full records there.
 */
import { z } from 'zod';
import { lockTenant } from '../locks.ts';
import { created, touched } from '../attribution.ts';
import { compareSiblings, nextSortOrder } from '../ordering.ts';
import { SERVER_OWNED, snippetRecord } from '../records.ts';
import { definedOnly, nameSchema, optionalFields } from '../schemas.ts';
import { snippetsTable, type SnippetRow } from '../tables.ts';
import { defineBehaviour } from './top-level.ts';

const sortOrderSchema = z.number().int().min(0).max(2_147_483_647);

/** The snippet's own fields, from the record (a new snippet goes last: no sortOrder on create). */
const content = snippetRecord.omit({
  ...SERVER_OWNED,
  name: true,
  sortOrder: true,
  deletionLocked: true,
}).shape;

const createBody = z.object({ name: nameSchema, ...content });

const updateBody = z.object({
  name: nameSchema.optional(),
  ...optionalFields(content),
  sortOrder: sortOrderSchema.optional(),
});

const adminUpdateBody = updateBody
  .extend({ deletionLocked: z.boolean().optional() })
  .refine(
    (body) => Object.values(body).some((value) => value !== undefined),
    'Provide deletionLocked or snippet fields to change.',
  );

export const snippetsBehaviour = defineBehaviour<
  SnippetRow,
  z.output<typeof createBody>,
  z.output<typeof updateBody>,
  z.output<typeof adminUpdateBody>
>({
  compare: compareSiblings,
  createBody,
  updateBody,
  async create(input, { tx, user, now, id }) {
    await lockTenant(tx);
    const last = await tx.table(snippetsTable).find({ orderBy: [['sortOrder', 'desc']], limit: 1 });
    return {
      id,
      ...input,
      sortOrder: nextSortOrder(last),
      deletionLocked: false,
      ...created(user, now),
    };
  },
  async update(_row, input) {
    return definedOnly(input);
  },
  admin: {
    fullRecords: true,
    create: true,
    updateBody: adminUpdateBody,
    async patch(_row, input, { user, now }) {
      const { deletionLocked, ...content } = definedOnly(input);
      // A lock toggle alone is not an edit of the snippet, so it leaves the attribution alone.
      const edited = Object.keys(content).length > 0 ? { ...content, ...touched(user, now) } : {};
      return deletionLocked === undefined ? edited : { ...edited, deletionLocked };
    },
  },
});
