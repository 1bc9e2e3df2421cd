/**
 * The request pipeline's own answers (kernel/http/pipeline.ts and the guards it runs before a
 * route's handler): 404 and 405 before authentication, 413, 415, malformed JSON, and the JSON and
 * path-id guards. The accounts routes serve as the routes being guarded.
 */
import { describe, expect, it } from 'vitest';
import { httpDrivers } from '../helpers/drivers.ts';
import { accountsPlugin } from '../../plugins/accounts/index.ts';
import { avatarsPlugin } from '../../plugins/avatars/index.ts';
import { uniqueName, useTestHub } from '../helpers/hub.ts';

describe.each(httpDrivers())('the request pipeline on %s', (kind) => {
  const t = useTestHub(kind, { plugins: [avatarsPlugin, accountsPlugin] });

  const newUserBody = (extra: Record<string, unknown> = {}) => ({
    name: uniqueName(),
    role: 'user',
    ...extra,
  });

  it('answers GET /no/such/route with a JSON 404 before asking for a token', async () => {
    const res = await t.request('GET', '/no/such/route', { token: null });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Not Found', code: 'not_found' });
  });

  it("answers PATCH /admin/users, POST /admin/users/:id, DELETE /health and PUT /auth/session with 405 and an Allow header listing the path's methods, before asking for a token", async () => {
    for (const [method, path, allow] of [
      ['PATCH', '/admin/users', 'GET, HEAD, POST'],
      ['POST', `/admin/users/${crypto.randomUUID()}`, 'PUT, DELETE'],
      ['DELETE', '/health', 'GET, HEAD'],
      ['PUT', '/auth/session', 'GET, HEAD'],
    ] as const) {
      const res = await t.request(method, path, { token: null });
      expect([method, path, res.status, res.body, res.headers.get('allow')]).toEqual([
        method,
        path,
        405,
        { error: 'Method Not Allowed', code: 'method_not_allowed' },
        allow,
      ]);
    }
  });

  it('answers 12 PATCH /auth/session with a wrong token with 405, then GET /auth/session with 401: a wrong method is never counted as a failed authentication', async () => {
    // Well past the failure limit (10): were they counted, the key would now be blocked (429).
    for (let i = 0; i < 12; i++)
      expect(
        (await t.request('PATCH', '/auth/session', { token: 'hbk_wrong-method' })).status,
      ).toBe(405);
    const res = await t.request('GET', '/auth/session', { token: 'hbk_wrong-method' });
    expect(res.status).toBe(401);
  });

  it('answers POST /admin/users with a form body with 415, and with a JSON body typed application/json; charset=utf-8 with 201', async () => {
    const res = await t.request('POST', '/admin/users', {
      rawBody: 'name=alice&role=user',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(415);
    expect(res.body.error).toBe(
      'Content-Type must be application/json (got application/x-www-form-urlencoded).',
    );
    const charset = await t.request('POST', '/admin/users', {
      body: newUserBody(),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(charset.status).toBe(201);
  });

  it('answers POST /admin/users with JSON bytes but no Content-Type with 415 and creates nothing, with no body at all with 400 naming the field, and ignores a body sent to DELETE /admin/users/:id', async () => {
    // Bytes, not a string: a string body would get `text/plain` from the Request constructor.
    const bare = (method: string, path: string, body?: string) =>
      t.hub.app.request(path, {
        method,
        headers: { authorization: `Bearer ${t.adminToken}` },
        ...(body === undefined ? {} : { body: new TextEncoder().encode(body) }),
      });
    const name = uniqueName();
    const res = await bare('POST', '/admin/users', JSON.stringify(newUserBody({ name })));
    expect(res.status).toBe(415);
    expect(await res.json()).toEqual({
      error:
        'Content-Type must be application/json (the request sent a body without a Content-Type).',
      code: 'unsupported_media_type',
    });
    expect(
      (await t.request('GET', '/admin/users')).body.users.some(
        (u: { name: string }) => u.name === name,
      ),
    ).toBe(false);
    const empty = await bare('POST', '/admin/users');
    expect(empty.status).toBe(400);
    expect((await empty.json()).error).toMatch(/^name: /);
    // A route that takes no body ignores one, as before.
    const user = await t.createUser({ name: uniqueName() });
    expect((await bare('DELETE', `/admin/users/${user.id}`, '{"ignored":true}')).status).toBe(204);
  });

  it('answers POST /admin/users with malformed JSON with 400', async () => {
    const res = await t.request('POST', '/admin/users', { rawBody: '{"name": ' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/JSON/i);
  });

  it('answers POST /admin/users with a NUL in a body key or a body nested over 64 levels with 400, and PUT, DELETE and POST on path ids over 128 characters with 404', async () => {
    const nulKey = await t.request('POST', '/admin/users', {
      body: { name: 'x', ['a\u0000']: 1 },
    });
    expect(nulKey.status).toBe(400);
    expect(nulKey.body.error).toBe('a\u0000: must not contain NUL characters');
    let deep: unknown = 'x';
    for (let i = 0; i < 70; i++) deep = [deep];
    const nested = await t.request('POST', '/admin/users', { body: { name: 'x', extra: deep } });
    expect(nested.status).toBe(400);
    expect(nested.body.error).toMatch(/must not be nested more than 64 levels deep$/);
    const long = 'x'.repeat(129);
    for (const [method, path, message] of [
      ['PUT', `/admin/users/${long}`, 'User not found'],
      ['DELETE', `/admin/users/${long}`, 'User not found'],
      ['POST', `/admin/users/${long}/tokens`, 'User not found'],
      ['DELETE', `/admin/tokens/${long}`, 'Token not found'],
    ] as const) {
      const res = await t.request(method, path, { body: { name: 'x' } });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error).toBe(message);
    }
  });

  it('answers DELETE, POST and PUT on path ids holding a NUL character with 404, and a NUL in an access-list id with 400, never with a 500', async () => {
    for (const [method, path] of [
      ['DELETE', '/admin/users/%00'],
      ['DELETE', '/admin/tokens/a%00b'],
      ['POST', '/admin/users/%00/tokens'],
      ['PUT', '/admin/users/%00'],
    ] as const) {
      const res = await t.request(method, path, { body: { name: 'x' } });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    const list = await t.request('POST', '/admin/users', {
      body: newUserBody({ collectionAccess: ['a\u0000b'] }),
    });
    expect(list.status).toBe(400);
  });

  it('answers POST /admin/users with a 6 MiB JSON body with 413', async () => {
    const res = await t.request('POST', '/admin/users', {
      rawBody: JSON.stringify({ name: 'x'.repeat(6 * 1024 * 1024) }),
    });
    expect(res.status).toBe(413);
    expect(res.body.error).toMatch(/too large/);
  });
});
