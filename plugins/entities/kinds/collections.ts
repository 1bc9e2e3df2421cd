/**
 * Collections: the top-level container of folders, saved requests and documents. Only the creator
 * may delete one through the data API, and only while it is unlocked; deleting it removes
 * everything inside it in the same transaction (routes/contents.ts).
 */
import { z } from 'zod';
import { created } from '../attribution.ts';
import { compareNames } from '../ordering.ts';
import { collectionRecord, SERVER_OWNED } from '../records.ts';
import { definedOnly, markerSchema, nameSchema, optionalFields } from '../schemas.ts';
import type { CollectionRow } from '../tables.ts';
import { defineBehaviour } from './top-level.ts';

/** The settings a client writes, from the record: defaults on create, all optional on update. */
const settings = collectionRecord.omit({
  ...SERVER_OWNED,
  name: true,
  deletionLocked: true,
  marker: true,
}).shape;

/** `POST /collections`: a name, and optionally any settings (handy for imports). */
const createBody = z.object({ name: nameSchema, ...settings, marker: markerSchema.optional() });
/** `PUT /collections/:id`: fields that are omitted keep their value. */
const updateBody = z.object({
  name: nameSchema.optional(),
  ...optionalFields(settings),
  marker: markerSchema.optional(),
});

export const collectionsBehaviour = defineBehaviour<
  CollectionRow,
  z.output<typeof createBody>,
  z.output<typeof updateBody>
>({
  compare: compareNames,
  createBody,
  updateBody,
  async create(input, { user, now, id }) {
    return {
      id,
      ...input,
      deletionLocked: false,
      marker: input.marker ?? null,
      ...created(user, now),
    };
  },
  async update(_row, input) {
    return definedOnly(input);
  },
});
