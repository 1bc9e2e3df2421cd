/**
 * The `avatars` plugin: user and hub avatars (initials, palette colour, optional image). Image
 * bytes live in the plugin's own table. Its face (the exports at the end) lets `PUT
 * /admin/users/:id` (accounts) apply `imageDataUrl` with the same checks, and gives the session its
 * hub presentation.
 */
import type { Context } from 'hono';
import { z } from 'zod';
import type { Clock } from '../../kernel/clock.ts';
import { notFound } from '../../kernel/errors.ts';
import { usersTable } from '../../kernel/identity/tables.ts';
import { userAvatarUrl } from '../../kernel/identity/users.ts';
import { createPluginApp, definePlugin, type KernelEnv } from '../../kernel/plugin.ts';
import { avatarsApi } from './api.ts';
import { decodeBase64 } from './image.ts';
import {
  avatarsTable,
  checkAvatarChange,
  deleteUserImage,
  hubAvatarId,
  hubPresentation,
  updateHubAvatar,
  updateUserAvatar,
  userAvatarId,
  type AvatarRow,
} from './service.ts';
import { pathId } from '../../kernel/http/params.ts';
import { jsonBody } from '../../kernel/http/validate.ts';

const NOT_FOUND = 'Avatar image not found';

/** `{initials?, color?, imageDataUrl?}` with at least one field. */
const avatarBody = z
  .object({
    initials: z.string().optional(),
    color: z.string().optional(),
    imageDataUrl: z.string().nullable().optional(),
  })
  .refine(
    (body) =>
      body.initials !== undefined || body.color !== undefined || body.imageDataUrl !== undefined,
    {
      message: 'Give at least one of initials, color or imageDataUrl.',
    },
  );

/** Whether an `If-None-Match` header names this ETag (or `*`); weak validators count too. */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((entry) => {
    const tag = entry.trim().replace(/^W\//, '');
    return tag === '*' || tag === etag;
  });
}

/** Serves stored image bytes; a fresh client copy gets 304 without the body. */
function serveImage(c: Context<KernelEnv, any, any>, row: AvatarRow | null): Response {
  if (!row) throw notFound(NOT_FOUND);
  const etag = `"${Date.parse(row.updatedAt)}"`;
  c.header('Cache-Control', 'private, max-age=3600');
  c.header('ETag', etag);
  if (matchesEtag(c.req.header('if-none-match'), etag)) return c.body(null, 304);
  c.header('Content-Type', row.mime);
  // The bytes are the uploader's; browsers must not guess another type (HTML, script) from them.
  c.header('X-Content-Type-Options', 'nosniff');
  return c.body(decodeBase64(row.data) as Uint8Array<ArrayBuffer>, 200);
}

/** The caller's own avatar, image bytes of users and the hub, and the hub avatar. */
function avatarRoutes(clock: Clock) {
  return createPluginApp()
    .put('/auth/profile/avatar', jsonBody(avatarBody), async (c) => {
      const change = checkAvatarChange(c.req.valid('json'));
      const user = await updateUserAvatar(
        c.get('store'),
        c.get('auth').user.id,
        change,
        clock.iso(),
      );
      const avatarImageUrl = userAvatarUrl(user);
      return c.json({
        avatarInitials: user.avatarInitials,
        avatarColor: user.avatarColor,
        ...(avatarImageUrl ? { avatarImageUrl } : {}),
      });
    })
    .get('/auth/users/:id/avatar', async (c) => {
      const id = pathId(c, 'id', NOT_FOUND);
      // The user lookup is tenant-bound, so another tenant's user is as missing as an unknown id.
      const store = c.get('store');
      const user = await store.table(usersTable).get(id);
      if (!user) throw notFound(NOT_FOUND);
      return serveImage(c, await store.table(avatarsTable).get(userAvatarId(id)));
    })
    .get('/auth/hub/avatar', async (c) => {
      const store = c.get('store');
      return serveImage(c, await store.table(avatarsTable).get(hubAvatarId(c.get('tenant').id)));
    })
    .put('/admin/hub/avatar', jsonBody(avatarBody), async (c) => {
      const change = checkAvatarChange(c.req.valid('json'));
      const tenant = await updateHubAvatar(c.get('store'), c.get('tenant').id, change, clock.iso());
      return c.json(hubPresentation(tenant));
    });
}

export const avatarsPlugin = definePlugin({
  name: 'avatars',
  api: avatarsApi,
  tables: [avatarsTable],
  migrations: [{ id: 'avatars/0001-avatars', createTables: [avatarsTable] }],
  setup(ctx) {
    ctx.identity.users.onDelete((tx, user) => deleteUserImage(tx, user.id));
    return { routes: avatarRoutes(ctx.clock) };
  },
});

// The plugin's public face: the only names other plugins may import from avatars.
export { hubPresentationSchema, userPresentationSchema } from './api.ts';
export {
  hubPresentation,
  parseImageField,
  setUserImage,
  userPresentation,
  type UserPresentation,
} from './service.ts';
