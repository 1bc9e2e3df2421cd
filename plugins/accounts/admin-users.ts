/** Admin routes for users and tokens (`/admin/*` is admin-only in the kernel pipeline). */
import { createPluginApp } from '../../kernel/plugin.ts';
import { badRequest, conflict, forbidden, notFound } from '../../kernel/errors.ts';
import { encodeCursor } from '../../kernel/http/paging.ts';
import type { Identity } from '../../kernel/identity/identity.ts';
import { toTokenRecord } from '../../kernel/identity/tokens.ts';
import { apiTokensTable, usersTable, type ApiTokenRow } from '../../kernel/identity/tables.ts';
import type { Store } from '../../kernel/storage/contract.ts';
import { toUserRecord } from '../../kernel/identity/users.ts';
import { pathId } from '../../kernel/http/params.ts';
import { jsonBody, validate } from '../../kernel/http/validate.ts';
import { objectNumber, type ReadCache } from '../../kernel/cache.ts';
import type { HubConfig } from '../../kernel/config/load.ts';
import { cachedJsonBytes, sendCachedJson, toCachedJson } from '../../kernel/http/cached-json.ts';
import type { Clock } from '../../kernel/clock.ts';
import { createTokenBody, createUserBody, listTokensQuery, updateUserBody } from './schemas.ts';
import { parseImageField, setUserImage } from '../avatars/index.ts';
import { listUsers, userListExtensions } from './list-extensions.ts';

const USER_NOT_FOUND = 'User not found';
const TOKEN_NOT_FOUND = 'Token not found';

/** A token an administrator may revoke or delete: 404 unknown, 403 the system account's. */
async function changeableToken(store: Store, id: string): Promise<ApiTokenRow> {
  const token = await store.table(apiTokensTable).get(id);
  if (!token) throw notFound(TOKEN_NOT_FOUND);
  const owner = token.userId ? await store.table(usersTable).get(token.userId) : null;
  if (owner?.system) throw forbidden('Tokens of the internal system account cannot be changed.');
  return token;
}

export function adminUserRoutes(
  identity: Identity,
  clock: Clock,
  cache: ReadCache,
  hubConfig: () => HubConfig,
) {
  const { users, tokens } = identity;
  return createPluginApp()
    .get('/admin/users', async (c) => {
      const store = c.get('store');
      // Kept until a user or a thing an access list names changes; the LLM models a list may name
      // come from the config, so a reload (a new config object) starts afresh.
      const answer = await cache.read(
        store,
        `accounts:users:${store.tenantId}:${objectNumber(hubConfig())}`,
        [
          usersTable,
          ...identity.access.tables(),
          ...userListExtensions(identity).flatMap((e) => e.tables),
        ],
        async () => toCachedJson({ users: await listUsers(identity, store) }),
        cachedJsonBytes,
      );
      return sendCachedJson(c, answer);
    })
    .post('/admin/users', jsonBody(createUserBody), async (c) => {
      const body = c.req.valid('json');
      // The account and its first token land together or not at all.
      const { user, token, secret } = await c.get('store').transaction(async (tx) => {
        const user = await users.create(tx, body);
        return { user, ...(await tokens.issue(tx, user, user.name)) };
      });
      return c.json({ user: toUserRecord(user), token: toTokenRecord(token), secret }, 201);
    })
    .put('/admin/users/:id', jsonBody(updateUserBody), async (c) => {
      const id = pathId(c, 'id', USER_NOT_FOUND);
      const { imageDataUrl, ...input } = c.req.valid('json');
      // The image is checked before anything is written; the account and image change together.
      const image = parseImageField(imageDataUrl);
      const user = await c.get('store').transaction(async (tx) => {
        const updated = await users.update(tx, id, input, c.get('auth').user.id);
        return image === undefined ? updated : setUserImage(tx, updated, image, clock.iso());
      });
      return c.json(toUserRecord(user));
    })
    .delete('/admin/users/:id', async (c) => {
      await users.delete(c.get('store'), pathId(c, 'id', USER_NOT_FOUND), c.get('auth').user.id);
      return c.body(null, 204);
    })
    .post('/admin/users/:id/tokens', jsonBody(createTokenBody), async (c) => {
      const { name, expiresInDays } = c.req.valid('json');
      const { token, secret } = await tokens.issueFor(
        c.get('store'),
        pathId(c, 'id', USER_NOT_FOUND),
        name,
        expiresInDays,
      );
      return c.json({ token: toTokenRecord(token), secret }, 201);
    })
    .get('/admin/tokens', validate('query', listTokensQuery), async (c) => {
      const { userId, limit, cursor } = c.req.valid('query');
      if (limit === undefined && cursor !== undefined)
        throw badRequest('cursor: only with limit (the list without limit is whole)');
      // One more than asked tells whether another page follows.
      const page = limit === undefined ? undefined : { limit: limit + 1, after: cursor };
      const rows = await tokens.list(c.get('store'), userId, page);
      if (limit === undefined || rows.length <= limit)
        return c.json({ tokens: rows.map(toTokenRecord) });
      const shown = rows.slice(0, limit);
      const last = shown[shown.length - 1]!;
      return c.json({ tokens: shown.map(toTokenRecord), nextCursor: encodeCursor(last) });
    })
    .post('/admin/tokens/:id/revoke', async (c) => {
      const store = c.get('store');
      const token = await changeableToken(store, pathId(c, 'id', TOKEN_NOT_FOUND));
      const revoked = await tokens.revoke(store, token.id);
      if (!revoked) throw conflict('Token is revoked already.');
      return c.json({ token: toTokenRecord(revoked) });
    })
    .delete('/admin/tokens/:id', async (c) => {
      const store = c.get('store');
      const token = await changeableToken(store, pathId(c, 'id', TOKEN_NOT_FOUND));
      await tokens.delete(store, token.id);
      return c.body(null, 204);
    });
}
