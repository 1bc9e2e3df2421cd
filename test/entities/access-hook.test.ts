/** The access-list hook: `/admin/users` knows which entity ids exist because this plugin says so. */
import { describe, expect, it } from 'vitest';
import { allDrivers } from '../helpers/drivers.ts';
import { fixtures, TOP_LEVEL_ENTITIES } from '../helpers/fixtures.ts';
import { uniqueName, useTestHub } from '../helpers/hub.ts';

describe.each(allDrivers())('access-list ids on %s', (driver) => {
  const h = fixtures(useTestHub(driver));

  it.each(TOP_LEVEL_ENTITIES)(
    '$field: POST /admin/users accepts existing ids and rejects unknown ones',
    async ({ field, path, noun }) => {
      const made = await h.create(path, { name: uniqueName(noun) });
      const ok = await h.t.request('POST', '/admin/users', {
        body: { name: uniqueName(), role: 'user', [field]: [made.id] },
      });
      expect(ok.status).toBe(201);
      expect(ok.body.user[field]).toEqual([made.id]);
      const unknown = crypto.randomUUID();
      const bad = await h.t.request('POST', '/admin/users', {
        body: { name: uniqueName(), role: 'user', [field]: [made.id, unknown] },
      });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toBe(`Unknown ${noun} id: ${unknown}.`);
    },
  );

  it.each(TOP_LEVEL_ENTITIES)(
    '$field: PUT /admin/users rejects unknown ids and accepts existing ones',
    async ({ field, path, noun }) => {
      const user = await h.user({});
      const made = await h.create(path, { name: uniqueName(noun) });
      const unknown = crypto.randomUUID();
      expect(
        (await h.t.request('PUT', `/admin/users/${user.id}`, { body: { [field]: [unknown] } }))
          .status,
      ).toBe(400);
      const ok = await h.t.request('PUT', `/admin/users/${user.id}`, {
        body: { [field]: [made.id] },
      });
      expect(ok.status).toBe(200);
      expect(ok.body[field]).toEqual([made.id]);
    },
  );

  it.each(TOP_LEVEL_ENTITIES)(
    '$field: GET /admin/users warns about ids whose entity was deleted',
    async ({ field, path, noun }) => {
      const made = await h.create(path, { name: uniqueName(noun) });
      const user = await h.user({ [field]: [made.id] });
      const before = await h.t.request('GET', '/admin/users');
      expect(before.body.users.find((u: { id: string }) => u.id === user.id).warnings).toEqual([]);
      expect((await h.t.request('DELETE', `/admin${path}/${made.id}`)).status).toBe(204);
      const after = await h.t.request('GET', '/admin/users');
      expect(after.body.users.find((u: { id: string }) => u.id === user.id).warnings).toEqual([
        `Unknown ${noun} id "${made.id}".`,
      ]);
    },
  );
});
