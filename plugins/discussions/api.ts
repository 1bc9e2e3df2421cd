/** API docs of the discussion routes; bodies and the list query come from the routes' validators. */
import { z } from 'zod';
import type { RouteDocs } from '../../kernel/http/openapi.ts';
import { userPresentationSchema } from '../avatars/index.ts';
import { TARGET_KINDS, TARGET_TYPES } from '../entities/index.ts';

export const commentRecordSchema = z
  .object({
    id: z.string(),
    entityType: z.enum(TARGET_TYPES),
    entityId: z.string(),
    parentCommentId: z.string().nullable(),
    rootCommentId: z.string(),
    depth: z.number().int(),
    body: z.string().nullable().describe('null when tombstoned, encrypted, or on an E2EE hub'),
    bodyFormat: z.string(),
    encryptedPayload: z.record(z.string(), z.unknown()).nullable(),
    author: userPresentationSchema,
    createdAt: z.string(),
    updatedAt: z.string(),
    tombstoned: z.boolean(),
  })
  .meta({ id: 'Comment' });

const subscription = z.object({ subscribed: z.boolean(), rootCommentId: z.string() });

export const discussionsApi: RouteDocs = {
  ...Object.fromEntries(
    TARGET_KINDS.flatMap(({ prefix: segment, noun }) => [
      [
        `GET /${segment}/:id/discussions`,
        {
          summary: `Comments on a ${noun}, oldest first (paged with \`cursor\`)`,
          errors: [403],
          responses: {
            200: z.object({
              comments: z.array(commentRecordSchema),
              nextCursor: z.string().optional(),
            }),
            304: null,
          },
        },
      ],
      [
        `POST /${segment}/:id/discussions`,
        {
          summary: `Start a thread on a ${noun}`,
          description:
            'Plain `body` on ordinary hubs; an `encryptedPayload` from an enrolled device on E2EE hubs. Mentions and thread watchers get notices.',
          errors: [403],
          responses: { 200: commentRecordSchema },
        },
      ],
    ]),
  ),
  'POST /discussion-comments/:id/replies': {
    summary: 'Reply to a comment',
    errors: [403],
    responses: { 200: commentRecordSchema },
  },
  'PUT /discussion-comments/:id': {
    summary: 'Edit a comment (its author only)',
    errors: [403],
    responses: { 200: commentRecordSchema },
  },
  'DELETE /discussion-comments/:id': {
    summary:
      'Delete a comment (author, or an admin): it becomes a tombstone so replies stay attached',
    errors: [403],
    responses: { 200: commentRecordSchema },
  },
  'GET /discussion-threads/:id/subscription': {
    summary: 'Whether the caller watches a thread',
    errors: [403],
    responses: { 200: subscription },
  },
  'POST /discussion-threads/:id/subscribe': {
    summary: 'Watch a thread',
    errors: [403],
    responses: { 200: subscription },
  },
  'POST /discussion-threads/:id/unsubscribe': {
    summary: 'Stop watching a thread',
    errors: [403],
    responses: { 200: subscription },
  },
};
