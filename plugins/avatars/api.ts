/** API docs of the avatar routes; the bodies come from the routes' validators. */
import { z } from 'zod';
import type { RouteDocs } from '../../kernel/http/openapi.ts';

const image = {
  description:
    'The image bytes (PNG, JPEG, GIF or WebP, typed from the bytes); 304 when `If-None-Match` matches the ETag',
  contentType: 'image/*',
  schema: { type: 'string', contentMediaType: 'image/*' },
};

/** The `hub` object of `/auth/session` and of `PUT /admin/hub/avatar`. */
export const hubPresentationSchema = z
  .object({
    name: z.string(),
    initials: z.string(),
    color: z.string(),
    imageUrl: z.string().optional(),
  })
  .meta({ id: 'Hub' });

/** A user's presentation (`userPresentation`): a comment's `author`, a notice's `actor`. */
export const userPresentationSchema = z.object({
  id: z.string(),
  name: z.string(),
  avatar: z
    .object({ initials: z.string(), color: z.string(), imageUrl: z.string().optional() })
    .optional(),
});

export const avatarsApi: RouteDocs = {
  'PUT /auth/profile/avatar': {
    summary: "Set the caller's initials, colour or image (null removes the image)",
    responses: {
      200: z.object({
        avatarInitials: z.string(),
        avatarColor: z.string(),
        avatarImageUrl: z.string().optional(),
      }),
    },
  },
  'GET /auth/users/:id/avatar': {
    summary: "A user's avatar image",
    responses: { 200: image, 304: null },
  },
  'GET /auth/hub/avatar': {
    summary: "The hub's avatar image",
    responses: { 200: image, 304: null },
  },
  'PUT /admin/hub/avatar': {
    summary: "Set the hub's initials, colour or image",
    responses: { 200: hubPresentationSchema },
  },
};
