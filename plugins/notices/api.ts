/** API docs of the notice routes; the feed query and settings body come from the validators. */
import { z } from 'zod';
import type { RouteDocs } from '../../kernel/http/openapi.ts';
import { NOTIFICATION_LEVELS } from './tables.ts';
import { userPresentationSchema } from '../avatars/index.ts';

const noticeRecord = z
  .object({
    id: z.string(),
    eventType: z.string(),
    entityType: z.string(),
    entityId: z.string(),
    requestId: z.string().nullable(),
    collectionId: z.string().nullable(),
    folderId: z.string().nullable(),
    runResultId: z.string().nullable(),
    discussionThreadId: z.string().nullable(),
    discussionCommentId: z.string().nullable(),
    actor: userPresentationSchema,
    createdAt: z.string(),
    readAt: z.string().nullable(),
    displayMetadata: z
      .looseObject({ actorName: z.string() })
      .describe(
        "What the client shows: target names, and a preview of the comment's current text (none once it is deleted, and none on E2EE hubs)",
      ),
  })
  .meta({ id: 'Notice' });

const settings = z.object({ level: z.enum(NOTIFICATION_LEVELS), updatedAt: z.string() });
const count = z.object({ count: z.number().int() });

export const noticesApi: RouteDocs = {
  'GET /notices': {
    summary: "The caller's notices, newest first (paged with `cursor`)",
    responses: {
      200: z.object({ notices: z.array(noticeRecord), nextCursor: z.string().optional() }),
    },
  },
  'GET /notices/unread-count': {
    summary: 'How many notices are unread',
    responses: { 200: count },
  },
  'POST /notices/read-all': {
    summary: 'Mark every notice read; answers how many changed',
    responses: { 200: count },
  },
  'POST /notices/:id/read': {
    summary: 'Mark one notice read',
    description:
      'A notice the feed does not show (its target is gone or the caller lost access to it) is a 404, like one that does not exist.',
    responses: { 200: noticeRecord },
  },
  'GET /notices/stream': {
    summary: 'New notices as Server-Sent Events',
    description:
      'Each event is `data: {"v":1,"type":…,"noticeId":…,"unreadCount":…}`; comments (`: heartbeat`) keep the connection open. The stream ends with `: shutdown` when the hub stops, and with `: unauthorized` within a second of its token being revoked or deleted or its user deleted. 503 while the Redis fan-out is not ready or the hub is shutting down.',
    responses: {
      200: {
        contentType: 'text/event-stream',
        description: 'An endless event stream',
        schema: { type: 'string' },
      },
    },
  },
  'GET /me/notification-settings': {
    summary: "The caller's notification level",
    responses: { 200: settings },
  },
  'PUT /me/notification-settings': {
    summary: "Set the caller's notification level",
    responses: { 200: settings },
  },
};
