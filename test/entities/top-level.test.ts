/**
 * Collections, environments, snippets, live servers and live pages: records, ordering, validation,
 * updates, deletion locks and the admin routes.
 */
import { describe, expect, it } from 'vitest';
import { allDrivers } from '../helpers/drivers.ts';
import { EVERY_ENTITY, fixtures, TOP_LEVEL_ENTITIES as LOCKABLE } from '../helpers/fixtures.ts';
import { uniqueName, useTestHub } from '../helpers/hub.ts';
import {
  adminSummaryShape,
  assertShape,
  collectionShape,
  environmentShape,
  livePageShape,
  liveServerShape,
  snippetShape,
} from './desktop-shapes.ts';

describe.each(allDrivers())('top-level entities on %s', (driver) => {
  const h = fixtures(useTestHub(driver));

  describe('records', () => {
    it('creates a collection with 200 and every field the desktop reads', async () => {
      const res = await h.t.request('POST', '/collections', { body: { name: '  Spaced name  ' } });
      expect(res.status).toBe(200);
      assertShape(collectionShape, res.body);
      expect(res.body).toMatchObject({
        name: 'Spaced name',
        variables: [],
        headers: [],
        preRequestScript: '',
        postRequestScript: '',
        auth: { type: 'none', basic: { username: '', password: '' }, bearer: { token: '' } },
        deletionLocked: false,
        marker: null,
        createdByUserId: h.t.adminId,
        updatedByUserId: h.t.adminId,
      });
      expect(res.body.createdAt).toMatch(/\.\d{3}Z$/);
    });

    it('updates a collection, keeping fields the body leaves out and completing partial values', async () => {
      const made = await h.collection(undefined, { marker: 'sky' });
      const res = await h.t.request('PUT', `/collections/${made.id}`, {
        body: {
          variables: [{ key: 'base', value: 'x' }],
          auth: { type: 'bearer', bearer: { token: 't' } },
          preRequestScript: 'run()',
        },
      });
      expect(res.status).toBe(200);
      assertShape(collectionShape, res.body);
      expect(res.body).toMatchObject({
        name: made.name,
        marker: 'sky',
        preRequestScript: 'run()',
        variables: [{ key: 'base', value: 'x', defaultValue: '', enabled: true, share: false }],
        auth: { type: 'bearer', basic: { username: '', password: '' }, bearer: { token: 't' } },
      });
      const cleared = await h.t.request('PUT', `/collections/${made.id}`, {
        body: { marker: '  ' },
      });
      expect(cleared.body.marker).toBeNull();
    });

    it('creates environments and snippets with their full records', async () => {
      const env = await h.create('/environments', {
        name: uniqueName('env'),
        variables: [{ key: 'k', value: 'v', share: true }],
      });
      assertShape(environmentShape, env);
      expect(env).toMatchObject({
        parentUuid: null,
        marker: null,
        variables: [{ key: 'k', value: 'v', share: true, enabled: true, defaultValue: '' }],
      });
      const snippet = await h.create('/snippets', { name: uniqueName('snippet') });
      assertShape(snippetShape, snippet);
      expect(snippet).toMatchObject({ code: '', scope: 'any', createdByUserId: h.t.adminId });
    });

    it('answers 404 to PUT on an unknown id instead of inserting', async () => {
      for (const { path, noun } of LOCKABLE) {
        const id = crypto.randomUUID();
        const res = await h.t.request('PUT', `${path}/${id}`, { body: { name: 'x' } });
        expect(res.status).toBe(404);
        expect(res.body.error).toBe(`${noun[0]!.toUpperCase()}${noun.slice(1)} not found`);
        expect(
          await h.listIds(path, LOCKABLE.find((k) => k.path === path)!.key, undefined, [id]),
        ).toEqual([]);
      }
    });
  });

  describe('ordering', () => {
    it('lists collections and environments by name, case-insensitively and with numbers in order', async () => {
      const tag = uniqueName('order');
      for (const path of ['/collections', '/environments']) {
        const names = [`${tag} item 10`, `${tag} Beta`, `${tag} item 2`, `${tag} alpha`];
        const made = [];
        for (const name of names) made.push(await h.create(path, { name }));
        const byName = new Map(made.map((row) => [row.id, row.name]));
        const key = path.slice(1);
        const ids = await h.listIds(
          path,
          key,
          undefined,
          made.map((row) => row.id),
        );
        expect(ids.map((id) => byName.get(id))).toEqual([
          `${tag} alpha`,
          `${tag} Beta`,
          `${tag} item 2`,
          `${tag} item 10`,
        ]);
      }
    });

    it('lists snippets by sortOrder then name, puts a new snippet last and honours sortOrder on PUT', async () => {
      const first = await h.create('/snippets', { name: uniqueName('z-snippet') });
      const second = await h.create('/snippets', { name: uniqueName('a-snippet') });
      expect(second.sortOrder).toBe(first.sortOrder + 1);
      expect(await h.listIds('/snippets', 'snippets', undefined, [first.id, second.id])).toEqual([
        first.id,
        second.id,
      ]);
      const moved = await h.t.request('PUT', `/snippets/${second.id}`, {
        body: { sortOrder: first.sortOrder },
      });
      expect(moved.status).toBe(200);
      expect(moved.body.sortOrder).toBe(first.sortOrder);
      // Same sortOrder: the name decides.
      expect(await h.listIds('/snippets', 'snippets', undefined, [first.id, second.id])).toEqual([
        second.id,
        first.id,
      ]);
    });

    it('lists live servers and live pages by name under their wrappers', async () => {
      const tag = uniqueName('live');
      for (const [path, key] of [
        ['/live-servers', 'liveServers'],
        ['/live-pages', 'livePages'],
      ] as const) {
        const b = await h.create(path, { name: `${tag} b` });
        const a = await h.create(path, { name: `${tag} A` });
        expect(await h.listIds(path, key, undefined, [a.id, b.id])).toEqual([a.id, b.id]);
      }
    });
  });

  describe('validation', () => {
    it('rejects blank, overlong and NUL-holding names with a 400 naming the field', async () => {
      for (const { path } of LOCKABLE) {
        for (const name of ['', '   ', 'x'.repeat(256), 'a\u0000b', 42]) {
          const res = await h.t.request('POST', path, { body: { name } });
          expect(res.status, `${path} ${JSON.stringify(name)}`).toBe(400);
          expect(res.body.error).toMatch(/^name: /);
        }
      }
    });

    it('stores a name of 255 characters, counting characters rather than UTF-16 units', async () => {
      const name = '😀'.repeat(255);
      const res = await h.t.request('POST', '/collections', { body: { name } });
      expect(res.status).toBe(200);
      expect(res.body.name).toBe(name);
      const env = await h.t.request('POST', '/environments', { body: { name: 'é'.repeat(255) } });
      expect(env.status).toBe(200);
    });

    it('answers malformed JSON, wrong types and NUL characters deep in a body with 400', async () => {
      const made = await h.collection();
      expect(
        (await h.t.request('PUT', `/collections/${made.id}`, { rawBody: '{"name":' })).status,
      ).toBe(400);
      const wrong = await h.t.request('PUT', `/collections/${made.id}`, {
        body: { headers: [{ key: 1 }] },
      });
      expect(wrong.status).toBe(400);
      expect(wrong.body.error).toMatch(/^headers\.0\.key: /);
      const nul = await h.t.request('PUT', `/collections/${made.id}`, {
        body: { variables: [{ key: 'k', value: 'a\u0000' }] },
      });
      expect(nul.status).toBe(400);
      expect(nul.body.error).toBe('variables.0.value: must not contain NUL characters');
      let deep: unknown = 'x';
      for (let i = 0; i < 200; i++) deep = [deep];
      const tooDeep = await h.t.request('POST', '/live-pages', {
        body: { name: 'deep', scripts: deep },
      });
      expect(tooDeep.status).toBe(400);
    });

    it('answers ids that cannot exist (overlong, NUL) with 404, not a database error', async () => {
      const long = 'x'.repeat(500);
      expect(
        (await h.t.request('PUT', `/collections/${long}`, { body: { name: 'x' } })).status,
      ).toBe(404);
      expect((await h.t.request('GET', '/collections/%00/folders')).status).toBe(404);
      expect((await h.t.request('DELETE', '/environments/%00')).status).toBe(404);
    });

    it('checks an environment parent: it must exist and inheritance cannot loop', async () => {
      const root = await h.create('/environments', { name: uniqueName('root') });
      const child = await h.create('/environments', {
        name: uniqueName('child'),
        parentUuid: root.id,
      });
      expect(child.parentUuid).toBe(root.id);
      const unknown = await h.t.request('POST', '/environments', {
        body: { name: 'x', parentUuid: crypto.randomUUID() },
      });
      expect(unknown.status).toBe(400);
      expect(unknown.body.error).toBe('parentUuid: Environment not found.');
      const self = await h.t.request('PUT', `/environments/${root.id}`, {
        body: { parentUuid: root.id },
      });
      expect(self.status).toBe(400);
      const loop = await h.t.request('PUT', `/environments/${root.id}`, {
        body: { parentUuid: child.id },
      });
      expect(loop.status).toBe(400);
      expect(loop.body.error).toMatch(/^parentUuid: /);
    });

    it('turns the children of a deleted environment into roots', async () => {
      const root = await h.create('/environments', { name: uniqueName('root') });
      const child = await h.create('/environments', {
        name: uniqueName('child'),
        parentUuid: root.id,
      });
      expect((await h.t.request('DELETE', `/environments/${root.id}`)).status).toBe(204);
      const list = await h.t.request('GET', '/environments');
      expect(
        list.body.environments.find((env: { id: string }) => env.id === child.id).parentUuid,
      ).toBeNull();
    });
  });

  describe('live servers and live pages', () => {
    it('fills every field the desktop requires when created from a partial body', async () => {
      const server = await h.create('/live-servers', {
        name: uniqueName('server'),
        port: 8080,
        unknownKey: 'dropped',
      });
      assertShape(liveServerShape, server);
      expect(server).toMatchObject({
        port: 8080,
        root: '',
        watch: true,
        indexFiles: ['index.html'],
        lastOpenedPath: null,
        ssl: { enabled: false },
      });
      expect(server).not.toHaveProperty('unknownKey');
      const page = await h.create('/live-pages', { name: uniqueName('page') });
      assertShape(livePageShape, page);
      const list = await h.t.request('GET', '/live-servers');
      for (const row of list.body.liveServers) assertShape(liveServerShape, row);
    });

    it('keeps extra keys inside list entries and accepts numeric error-page codes as strings', async () => {
      const server = await h.create('/live-servers', {
        name: uniqueName('server'),
        errorPages: [{ code: 404, path: '/404.html' }],
        proxies: [{ path: '/api', target: 'http://localhost:3000', future: 'kept' }],
      });
      expect(server.errorPages).toEqual([{ code: '404', path: '/404.html' }]);
      expect(server.proxies[0].future).toBe('kept');
    });

    it('rejects a field of the wrong type with a 400 naming it', async () => {
      const res = await h.t.request('POST', '/live-servers', { body: { name: 'x', port: 70000 } });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/^port: /);
      const cors = await h.t.request('POST', '/live-servers', {
        body: { name: 'x', cors: { enabled: 'yes' } },
      });
      expect(cors.body.error).toMatch(/^cors\.enabled: /);
    });

    it('replaces the whole configuration on PUT', async () => {
      const server = await h.create('/live-servers', {
        name: uniqueName('server'),
        root: '/srv',
        port: 9000,
      });
      const res = await h.t.request('PUT', `/live-servers/${server.id}`, {
        body: { name: 'renamed', host: '0.0.0.0' },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        id: server.id,
        name: 'renamed',
        host: '0.0.0.0',
        root: '',
        port: null,
        createdAt: server.createdAt,
      });
    });
  });

  describe('deletion locks and admin routes', () => {
    it.each(LOCKABLE)(
      '$path: a lock refuses the data-API delete with its own message until it is lifted',
      async ({ path, key, noun }) => {
        const made = await h.create(path, { name: uniqueName(key) });
        const lock = await h.t.request('PUT', `/admin${path}/${made.id}`, {
          body: { deletionLocked: true },
        });
        expect(lock.status).toBe(200);
        expect(lock.body).toMatchObject({ id: made.id, name: made.name, deletionLocked: true });
        const refused = await h.t.request('DELETE', `${path}/${made.id}`);
        expect(refused.status).toBe(403);
        expect(refused.body).toEqual({
          error: `Deletion is locked for this ${noun}.`,
          code: 'forbidden',
        });
        expect(
          (
            await h.t.request('PUT', `/admin${path}/${made.id}`, {
              body: { deletionLocked: false },
            })
          ).body.deletionLocked,
        ).toBe(false);
        expect((await h.t.request('DELETE', `${path}/${made.id}`)).status).toBe(204);
      },
    );

    it.each(LOCKABLE)('$path: the admin delete ignores the lock', async ({ path, key }) => {
      const user = await h.user(EVERY_ENTITY);
      const made = await h.create(path, { name: uniqueName(key) }, user.token);
      await h.t.request('PUT', `/admin${path}/${made.id}`, { body: { deletionLocked: true } });
      expect((await h.t.request('DELETE', `/admin${path}/${made.id}`)).status).toBe(204);
      expect(await h.listIds(path, key, undefined, [made.id])).toEqual([]);
      expect((await h.t.request('DELETE', `/admin${path}/${made.id}`)).status).toBe(404);
    });

    it.each(LOCKABLE)(
      '$path: the admin list shows every entity as id, name and lock',
      async ({ path, key }) => {
        const user = await h.user(EVERY_ENTITY);
        const made = await h.create(path, { name: uniqueName(key) }, user.token);
        const res = await h.t.request('GET', `/admin${path}`);
        expect(res.status).toBe(200);
        const row = res.body[key].find((entry: { id: string }) => entry.id === made.id);
        if (key === 'snippets') assertShape(snippetShape, row);
        else assertShape(adminSummaryShape, row);
        expect(row).toMatchObject({ id: made.id, name: made.name, deletionLocked: false });
      },
    );

    it('answers admin lock toggles on unknown ids with 404 and bad bodies with 400', async () => {
      const res = await h.t.request('PUT', `/admin/collections/${crypto.randomUUID()}`, {
        body: { deletionLocked: true },
      });
      expect(res.status).toBe(404);
      expect(res.body.error).toBe('Collection not found');
      const made = await h.collection();
      const bad = await h.t.request('PUT', `/admin/collections/${made.id}`, {
        body: { deletionLocked: 'yes' },
      });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toMatch(/^deletionLocked: /);
    });

    it('refuses admin routes to user-role tokens', async () => {
      const user = await h.user({ collectionAccess: ['*'] });
      for (const path of [
        '/admin/collections',
        '/admin/snippets',
        '/admin/live-pages',
        '/admin/run-results',
      ]) {
        expect((await h.t.request('GET', path, { token: user.token })).status).toBe(403);
      }
    });

    it('lets admins create and edit snippets through /admin/snippets', async () => {
      const made = await h.create('/admin/snippets', {
        name: uniqueName('admin-snippet'),
        code: 'a()',
        scope: 'pre-request',
      });
      assertShape(snippetShape, made);
      const edited = await h.t.request('PUT', `/admin/snippets/${made.id}`, {
        body: { code: 'b()', deletionLocked: true },
      });
      expect(edited.status).toBe(200);
      assertShape(snippetShape, edited.body);
      expect(edited.body).toMatchObject({ code: 'b()', deletionLocked: true, name: made.name });
      expect((await h.t.request('PUT', `/admin/snippets/${made.id}`, { body: {} })).status).toBe(
        400,
      );
    });

    it('lets the creator of an unlocked collection delete it, but not an admin who did not create it', async () => {
      const user = await h.user({ collectionAccess: ['*'] });
      const mine = await h.collection(user.token);
      expect((await h.t.request('DELETE', `/collections/${mine.id}`)).status).toBe(403);
      expect(
        (await h.t.request('DELETE', `/collections/${mine.id}`, { token: user.token })).status,
      ).toBe(204);
      expect(
        (await h.t.request('DELETE', `/collections/${mine.id}`, { token: user.token })).status,
      ).toBe(404);
    });
  });
});
