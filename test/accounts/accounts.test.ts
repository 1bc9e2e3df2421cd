import { describe, expect, it, vi } from 'vitest';
import { apiTokensTable, usersTable } from '../../kernel/identity/tables.ts';
import { DEFAULT_TENANT_ID } from '../../kernel/identity/tenants.ts';
import { newId } from '../../kernel/identity/secrets.ts';
import { HUB_VERSION } from '../../kernel/version.ts';
import { createManualClock } from '../../kernel/clock.ts';
import { httpDrivers } from '../helpers/drivers.ts';
import { accountsPlugin } from '../../plugins/accounts/index.ts';
import { avatarsPlugin } from '../../plugins/avatars/index.ts';
import { NO_ACCESS } from '../helpers/fixtures.ts';
import { uniqueName, useTestHub, withTestHub } from '../helpers/hub.ts';

describe.each(httpDrivers())('accounts routes on %s', (kind) => {
  const t = useTestHub(kind, {
    plugins: [avatarsPlugin, accountsPlugin],
    config: { collaboration: { e2ee: true } },
  });

  const newUserBody = (extra: Record<string, unknown> = {}) => ({
    name: uniqueName(),
    role: 'user',
    ...extra,
  });

  describe('public and session', () => {
    it('answers /health without a token', async () => {
      const res = await t.request('GET', '/health', { token: null });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'ok', version: HUB_VERSION });
    });

    it('rejects a missing, malformed or unknown token with 401', async () => {
      for (const headers of [
        {},
        { authorization: 'Basic abc' },
        { authorization: 'Bearer' },
        { authorization: 'Bearer hbk_unknown' },
      ] as Record<string, string>[]) {
        const res = await t.request('GET', '/auth/session', { token: null, headers });
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ error: 'Unauthorized', code: 'unauthorized' });
        expect(res.headers.get('www-authenticate')).toBe('Bearer');
      }
    });

    it('returns the full session body for an admin', async () => {
      const res = await t.request('GET', '/auth/session');
      expect(res.status).toBe(200);
      expect(res.body.user).toMatchObject({ id: t.adminId, role: 'admin' });
      expect(res.body.user.avatarInitials).toMatch(/^\p{Lu}{1,2}$/u);
      expect(res.body.user.avatarColor).toMatch(/^[a-z]+-\d{3}$/);
      expect(res.body.user).not.toHaveProperty('avatarImageUrl');
      expect(res.body.token.prefix).toMatch(/^hbk_.{8}$/);
      expect(res.body.capabilities).toEqual({
        dataApi: true,
        managementApi: true,
        llm: false,
        communication: true,
        discussionE2ee: true,
      });
      expect(res.body.tenantId).toBe(DEFAULT_TENANT_ID);
      expect(res.body.hub).toMatchObject({
        name: expect.any(String),
        initials: expect.any(String),
        color: expect.any(String),
      });
    });

    it('gives a user-role account no management API and llm only with llmAccess', async () => {
      const plain = await t.createUser({});
      const withLlm = await t.createUser({ llmAccess: true });
      const a = await t.request('GET', '/auth/session', { token: plain.token });
      expect(a.body.capabilities).toMatchObject({
        dataApi: true,
        managementApi: false,
        llm: false,
        communication: true,
      });
      const b = await t.request('GET', '/auth/session', { token: withLlm.token });
      expect(b.body.capabilities.llm).toBe(true);
    });

    it('records when a token was last used', async () => {
      const user = await t.createUser({});
      await t.request('GET', '/auth/session', { token: user.token });
      // Recording use is deliberately off the request's path, so wait for it to land.
      await vi.waitFor(async () => {
        const tokens = await t
          .store()
          .table(apiTokensTable)
          .find({ where: { userId: user.id } });
        expect(tokens[0]!.lastUsedAt).toMatch(/\.\d{3}Z$/);
      });
    });
  });

  describe('last use of a token', () => {
    it('is written at most once a minute, also while the token is served from the read cache', async () => {
      const clock = createManualClock(new Date('2026-05-01T10:00:00.000Z'));
      await withTestHub(
        { plugins: [avatarsPlugin, accountsPlugin], driver: t.driver, clock },
        async (hub) => {
          const user = await hub.createUser({});
          const lastUsed = async () =>
            (
              await hub.hub
                .driver()
                .forTenant(DEFAULT_TENANT_ID)
                .table(apiTokensTable)
                .find({ where: { userId: user.id } })
            )[0]!.lastUsedAt;
          expect((await hub.request('GET', '/auth/session', { token: user.token })).status).toBe(
            200,
          );
          await vi.waitFor(async () => expect(await lastUsed()).toBe('2026-05-01T10:00:00.000Z'));
          clock.advance(30_000);
          expect((await hub.request('GET', '/auth/session', { token: user.token })).status).toBe(
            200,
          );
          await new Promise((resolve) => setTimeout(resolve, 50));
          expect(await lastUsed()).toBe('2026-05-01T10:00:00.000Z');
          clock.advance(31_000);
          expect((await hub.request('GET', '/auth/session', { token: user.token })).status).toBe(
            200,
          );
          await vi.waitFor(async () => expect(await lastUsed()).toBe('2026-05-01T10:01:01.000Z'));
        },
      );
    });
  });

  describe('roles', () => {
    it('refuses every admin route to a user-role token with 403', async () => {
      const user = await t.createUser({});
      for (const [method, path] of [
        ['GET', '/admin/users'],
        ['POST', '/admin/users'],
        ['GET', '/admin/tokens'],
        ['DELETE', `/admin/users/${t.adminId}`],
      ] as const) {
        const res = await t.request(method, path, {
          token: user.token,
          body: method === 'POST' ? newUserBody() : undefined,
        });
        expect(res.status, `${method} ${path}`).toBe(403);
        expect(res.body).toEqual({ error: 'Admin role required.', code: 'forbidden' });
      }
    });
  });

  describe('POST /admin/users', () => {
    it('creates a user and returns its first token secret once', async () => {
      const body = newUserBody({ llmAccess: true, llmMonthlyTokenLimit: 5000 });
      const res = await t.request('POST', '/admin/users', { body });
      expect(res.status).toBe(201);
      expect(res.body.user).toMatchObject({
        name: body.name,
        role: 'user',
        ...NO_ACCESS,
        llmAccess: true,
        llmMonthlyTokenLimit: 5000,
      });
      expect(res.body.user.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(res.body.token).toMatchObject({
        userId: res.body.user.id,
        name: body.name,
        lastUsedAt: null,
        revokedAt: null,
      });
      expect(res.body.secret).toMatch(/^hbk_[A-Za-z0-9_-]{43}$/);
      expect(res.body.token.tokenPrefix).toBe(res.body.secret.slice(0, 12));
      const session = await t.request('GET', '/auth/session', { token: res.body.secret });
      expect(session.body.user.id).toBe(res.body.user.id);
    });

    it('stores only the sha256 of the secret', async () => {
      const res = await t.request('POST', '/admin/users', { body: newUserBody() });
      const row = await t.store().table(apiTokensTable).get(res.body.token.id);
      expect(row!.tokenHash).toMatch(/^[0-9a-f]{64}$/);
      expect(JSON.stringify(row)).not.toContain(res.body.secret.slice(4));
    });

    it('rejects a duplicate name, whatever its case, and leaves no token behind', async () => {
      const name = uniqueName('Dup');
      expect(
        (await t.request('POST', '/admin/users', { body: { name, role: 'user' } })).status,
      ).toBe(201);
      const before = (await t.request('GET', '/admin/tokens')).body.tokens.length;
      const res = await t.request('POST', '/admin/users', {
        body: { name: name.toUpperCase(), role: 'user' },
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toContain('already in use');
      expect((await t.request('GET', '/admin/tokens')).body.tokens.length).toBe(before);
    });

    it('rejects the reserved system name', async () => {
      const res = await t.request('POST', '/admin/users', {
        body: { name: 'System', role: 'user' },
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toContain('reserved');
    });

    it.each([
      [{ name: 123 }, /^name: /],
      [{}, /^name: /],
      [{ name: '   ' }, /^name: /],
      [{ name: 'x', role: 'owner' }, /^role: /],
      [{ name: 'x', llmMonthlyTokenLimit: -1 }, /^llmMonthlyTokenLimit: /],
      [{ name: 'x', collectionAccess: 'all' }, /^collectionAccess: /],
      [{ name: 'x', avatarColor: 'red' }, /^avatarColor: /],
      [{ name: 'x', avatarInitials: 'ABC' }, /^avatarInitials: /],
      // Upper-cased, ßß would be four letters.
      [{ name: 'x', avatarInitials: 'ßß' }, /^avatarInitials: /],
      // Lower-cased, each İ becomes two characters: the stored key would overflow.
      [{ name: 'İ'.repeat(200) }, /^name: .*at most 255/],
      [{ name: 'a\u0000b' }, /^name: /],
    ])('rejects %j with a 400 naming the field', async (body, pattern) => {
      const res = await t.request('POST', '/admin/users', { body });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(pattern);
    });

    it('rejects a wildcard mixed with ids', async () => {
      const res = await t.request('POST', '/admin/users', {
        body: newUserBody({ environmentAccess: ['*', 'abc'] }),
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('environmentAccess: Wildcard access "*" must be the only entry.');
    });

    it('rejects ids of kinds no plugin provides yet', async () => {
      const id = newId();
      const res = await t.request('POST', '/admin/users', {
        body: newUserBody({ collectionAccess: [id] }),
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe(`Unknown collection id: ${id}.`);
      const models = await t.request('POST', '/admin/users', {
        body: newUserBody({ llmModels: ['gpt-x', 'gpt-y'] }),
      });
      expect(models.body.error).toBe('Unknown LLM model id(s): gpt-x, gpt-y.');
    });

    it('accepts the wildcard alone', async () => {
      const res = await t.request('POST', '/admin/users', {
        body: newUserBody({ collectionAccess: ['*'], snippetAccess: ['*'], llmModels: ['*'] }),
      });
      expect(res.status).toBe(201);
      expect(res.body.user.collectionAccess).toEqual(['*']);
    });

    it('refuses access lists for admin accounts', async () => {
      const res = await t.request('POST', '/admin/users', {
        body: newUserBody({ role: 'admin', collectionAccess: ['*'] }),
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/^collectionAccess: Admin users cannot have/);
    });
  });

  describe('GET /admin/users', () => {
    it('lists accounts by name without the system account, with warnings for stale ids', async () => {
      const store = t.store();
      const stale = await t.createUser({ name: uniqueName('stale') });
      await store
        .table(usersTable)
        .update(stale.id, { collectionAccess: ['gone-1'], llmModels: ['old-model'] });
      const res = await t.request('GET', '/admin/users');
      expect(res.status).toBe(200);
      const names = res.body.users.map((u: { name: string }) => u.name);
      expect(names).not.toContain('system');
      expect([...names]).toEqual(
        [...names].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase())),
      );
      const entry = res.body.users.find((u: { id: string }) => u.id === stale.id);
      expect(entry.warnings).toEqual([
        'Unknown collection id "gone-1".',
        'Unknown LLM model id "old-model".',
      ]);
      const admin = res.body.users.find((u: { id: string }) => u.id === t.adminId);
      expect(admin.warnings).toEqual([]);
    });
  });

  describe('PUT /admin/users/:id', () => {
    it('changes only the fields given and keeps stale lists it was not given', async () => {
      const store = t.store();
      const user = await t.createUser({ collectionAccess: ['*'] });
      await store.table(usersTable).update(user.id, { environmentAccess: ['stale-env'] });
      const res = await t.request('PUT', `/admin/users/${user.id}`, {
        body: { llmAccess: true, avatarInitials: 'qz', avatarColor: 'teal-600' },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        llmAccess: true,
        avatarInitials: 'QZ',
        avatarColor: 'teal-600',
        collectionAccess: ['*'],
        environmentAccess: ['stale-env'],
      });
      expect(res.body).not.toHaveProperty('warnings');
    });

    it('validates only the lists present in the body', async () => {
      const user = await t.createUser({});
      const res = await t.request('PUT', `/admin/users/${user.id}`, {
        body: { snippetAccess: ['nope'] },
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('Unknown snippet id: nope.');
    });

    it('clears entity access lists when a user is promoted to admin', async () => {
      const user = await t.createUser({ collectionAccess: ['*'], environmentAccess: ['*'] });
      const res = await t.request('PUT', `/admin/users/${user.id}`, { body: { role: 'admin' } });
      expect(res.body).toMatchObject({
        role: 'admin',
        collectionAccess: [],
        environmentAccess: [],
      });
    });

    it('rejects a name already used by another account', async () => {
      const a = await t.createUser({});
      const b = await t.createUser({ name: uniqueName('taken') });
      const taken = (await t.request('GET', '/admin/users')).body.users.find(
        (u: { id: string }) => u.id === b.id,
      ).name;
      const res = await t.request('PUT', `/admin/users/${a.id}`, { body: { name: taken } });
      expect(res.status).toBe(400);
      expect(res.body.error).toContain('already in use');
    });

    it('answers 404 for an unknown user and 403 for the system account', async () => {
      expect(
        (await t.request('PUT', `/admin/users/${newId()}`, { body: { llmAccess: true } })).status,
      ).toBe(404);
      const system = await t.store().table(usersTable).findOne({ system: true });
      const res = await t.request('PUT', `/admin/users/${system!.id}`, {
        body: { llmAccess: true },
      });
      expect(res.status).toBe(403);
    });

    it('does not let an admin change its own role', async () => {
      const res = await t.request('PUT', `/admin/users/${t.adminId}`, { body: { role: 'user' } });
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('You cannot change your own role.');
    });
  });

  describe('DELETE /admin/users/:id', () => {
    it('deletes the user and every token of theirs', async () => {
      const user = await t.createUser({});
      expect((await t.request('DELETE', `/admin/users/${user.id}`)).status).toBe(204);
      expect((await t.request('GET', '/auth/session', { token: user.token })).status).toBe(401);
      const tokens = await t
        .store()
        .table(apiTokensTable)
        .find({ where: { userId: user.id } });
      expect(tokens).toEqual([]);
    });

    it('refuses to delete yourself or the system account, and 404s an unknown id', async () => {
      expect((await t.request('DELETE', `/admin/users/${t.adminId}`)).status).toBe(403);
      const system = await t.store().table(usersTable).findOne({ system: true });
      expect((await t.request('DELETE', `/admin/users/${system!.id}`)).status).toBe(403);
      expect((await t.request('DELETE', `/admin/users/${newId()}`)).status).toBe(404);
    });
  });

  describe('tokens', () => {
    it('issues another token for a user', async () => {
      const user = await t.createUser({});
      const res = await t.request('POST', `/admin/users/${user.id}/tokens`, {
        body: { name: 'laptop' },
      });
      expect(res.status).toBe(201);
      expect(res.body.token).toMatchObject({ userId: user.id, name: 'laptop' });
      expect(
        (await t.request('GET', '/auth/session', { token: res.body.secret })).body.user.id,
      ).toBe(user.id);
    });

    it('refuses tokens for the system account and unknown users, and empty names', async () => {
      const system = await t.store().table(usersTable).findOne({ system: true });
      expect(
        (await t.request('POST', `/admin/users/${system!.id}/tokens`, { body: { name: 'x' } }))
          .status,
      ).toBe(403);
      expect(
        (await t.request('POST', `/admin/users/${newId()}/tokens`, { body: { name: 'x' } })).status,
      ).toBe(404);
      const user = await t.createUser({});
      const res = await t.request('POST', `/admin/users/${user.id}/tokens`, {
        body: { name: ' ' },
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/^name: /);
      for (const name of ['a\u0000b', 'a\u0001b']) {
        const control = await t.request('POST', `/admin/users/${user.id}/tokens`, {
          body: { name },
        });
        expect(control.status).toBe(400);
        expect(control.body.error).toMatch(/^name: /);
      }
    });

    it('lists tokens without secrets or hashes', async () => {
      const res = await t.request('GET', '/admin/tokens');
      expect(res.status).toBe(200);
      for (const token of res.body.tokens) {
        expect(Object.keys(token).sort()).toEqual([
          'createdAt',
          'expiresAt',
          'id',
          'lastUsedAt',
          'name',
          'revokedAt',
          'tokenPrefix',
          'userId',
        ]);
      }
    });

    it('deletes a token so it stops working', async () => {
      const user = await t.createUser({});
      const issued = await t.request('POST', `/admin/users/${user.id}/tokens`, {
        body: { name: 'temp' },
      });
      expect((await t.request('DELETE', `/admin/tokens/${issued.body.token.id}`)).status).toBe(204);
      expect((await t.request('GET', '/auth/session', { token: issued.body.secret })).status).toBe(
        401,
      );
      expect((await t.request('DELETE', `/admin/tokens/${issued.body.token.id}`)).status).toBe(404);
    });

    it('revokes a token: it stops working, stays listed with revokedAt, and a second revoke is 409', async () => {
      const user = await t.createUser({});
      const issued = await t.request('POST', `/admin/users/${user.id}/tokens`, {
        body: { name: 'phone' },
      });
      const id = issued.body.token.id;
      const res = await t.request('POST', `/admin/tokens/${id}/revoke`);
      expect(res.status).toBe(200);
      expect(res.body.token).toMatchObject({ id, name: 'phone', revokedAt: expect.any(String) });
      expect((await t.request('GET', '/auth/session', { token: issued.body.secret })).status).toBe(
        401,
      );
      const listed = await t.request('GET', `/admin/tokens?userId=${user.id}`);
      expect(listed.body.tokens.find((token: { id: string }) => token.id === id).revokedAt).toBe(
        res.body.token.revokedAt,
      );
      const again = await t.request('POST', `/admin/tokens/${id}/revoke`);
      expect([again.status, again.body.error]).toEqual([409, 'Token is revoked already.']);
      expect((await t.request('POST', `/admin/tokens/${newId()}/revoke`)).status).toBe(404);
    });

    it('pages tokens with limit and cursor, newest first, and lists all without a limit', async () => {
      const user = await t.createUser({});
      for (const name of ['a', 'b', 'c'])
        await t.request('POST', `/admin/users/${user.id}/tokens`, { body: { name } });
      const all = (await t.request('GET', `/admin/tokens?userId=${user.id}`)).body;
      expect(all.tokens).toHaveLength(4);
      expect(all.nextCursor).toBeUndefined();
      const first = (await t.request('GET', `/admin/tokens?userId=${user.id}&limit=3`)).body;
      expect(first.tokens.map((token: { id: string }) => token.id)).toEqual(
        all.tokens.slice(0, 3).map((token: { id: string }) => token.id),
      );
      const rest = await t.request(
        'GET',
        `/admin/tokens?userId=${user.id}&limit=3&cursor=${first.nextCursor}`,
      );
      expect(rest.body.tokens.map((token: { id: string }) => token.id)).toEqual([all.tokens[3].id]);
      expect(rest.body.nextCursor).toBeUndefined();
      for (const [query, message] of [
        [`cursor=${first.nextCursor}`, 'cursor: only with limit (the list without limit is whole)'],
        ['limit=3&cursor=nope!', 'cursor: Invalid tokens cursor'],
        ['limit=0', 'limit: must be an integer from 1 to 100'],
      ]) {
        const refused = await t.request('GET', `/admin/tokens?${query}`);
        expect([refused.status, refused.body.error]).toEqual([400, message]);
      }
    });

    it('refuses to delete a token of the system account', async () => {
      const store = t.store();
      const system = await store.table(usersTable).findOne({ system: true });
      const id = newId();
      await store.table(apiTokensTable).insert({
        id,
        userId: system!.id,
        name: 'internal',
        tokenHash: 'f'.repeat(64),
        tokenPrefix: 'hbk_internal',
        createdAt: new Date().toISOString(),
        lastUsedAt: null,
        revokedAt: null,
        expiresAt: null,
      });
      expect((await t.request('DELETE', `/admin/tokens/${id}`)).status).toBe(403);
      expect((await t.request('POST', `/admin/tokens/${id}/revoke`)).status).toBe(403);
      await store.table(apiTokensTable).delete(id);
    });

    it('rejects a revoked token with 401', async () => {
      const user = await t.createUser({});
      const store = t.store();
      const [token] = await store.table(apiTokensTable).find({ where: { userId: user.id } });
      expect(await t.hub.identity.tokens.revoke(store, token!.id)).not.toBeNull();
      expect((await t.request('GET', '/auth/session', { token: user.token })).status).toBe(401);
      expect(await t.hub.identity.tokens.revoke(store, token!.id)).toBeNull();
    });
  });
});
