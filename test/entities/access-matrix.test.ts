/**
 * The whole access matrix, table-driven: each of the five access lists, each of `[*]` / specific
 * ids / `[]`, and an admin, against list, create, update and delete — plus the operations inside a
 * collection, which follow `collectionAccess`.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { allDrivers } from '../helpers/drivers.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { uniqueName, useTestHub } from '../helpers/hub.ts';

interface Kind {
  field:
    | 'collectionAccess'
    | 'environmentAccess'
    | 'snippetAccess'
    | 'liveServerAccess'
    | 'livePageAccess';
  path: string;
  key: string;
  /** Data-API delete only by the creator (collections). */
  creatorOnly: boolean;
}

const KINDS: Kind[] = [
  { field: 'collectionAccess', path: '/collections', key: 'collections', creatorOnly: true },
  { field: 'environmentAccess', path: '/environments', key: 'environments', creatorOnly: false },
  { field: 'snippetAccess', path: '/snippets', key: 'snippets', creatorOnly: false },
  { field: 'liveServerAccess', path: '/live-servers', key: 'liveServers', creatorOnly: false },
  { field: 'livePageAccess', path: '/live-pages', key: 'livePages', creatorOnly: false },
];

type Mode = 'wildcard' | 'specific ids' | 'empty list' | 'admin';

/** What each caller may do with entity A (granted by "specific ids") and B (not granted). */
const MATRIX: {
  mode: Mode;
  sees: 'both' | 'only A' | 'nothing';
  create: number;
  updateA: number;
  updateB: number;
}[] = [
  { mode: 'wildcard', sees: 'both', create: 200, updateA: 200, updateB: 200 },
  { mode: 'specific ids', sees: 'only A', create: 403, updateA: 200, updateB: 403 },
  { mode: 'empty list', sees: 'nothing', create: 403, updateA: 403, updateB: 403 },
  { mode: 'admin', sees: 'both', create: 200, updateA: 200, updateB: 200 },
];

describe.each(allDrivers())('access lists on %s', (driver) => {
  const h = fixtures(useTestHub(driver));

  describe.each(KINDS)('$field', (kind) => {
    const newEntity = () => h.create(kind.path, { name: uniqueName(kind.key) });
    /** A caller in `mode`, whose specific-ids list grants `grantedId`. */
    const caller = async (mode: Mode, grantedId: string) => {
      if (mode === 'admin') return { id: h.t.adminId, token: h.t.adminToken };
      const list = mode === 'wildcard' ? ['*'] : mode === 'specific ids' ? [grantedId] : [];
      return h.user({ [kind.field]: list });
    };

    it.each(MATRIX)('$mode: the list shows $sees', async ({ mode, sees }) => {
      const a = await newEntity();
      const b = await newEntity();
      const user = await caller(mode, a.id);
      const all = await h.listIds(kind.path, kind.key, user.token);
      const visible = all.filter((id) => id === a.id || id === b.id);
      expect(visible.sort()).toEqual(
        sees === 'both' ? [a.id, b.id].sort() : sees === 'only A' ? [a.id] : [],
      );
      if (sees === 'only A') expect(all).toEqual([a.id]);
      if (sees === 'nothing') expect(all).toEqual([]);
    });

    it.each(MATRIX)(
      '$mode: creating a top-level entity answers $create',
      async ({ mode, create }) => {
        // Specific ids must name an existing entity: the hub refuses unknown ids in access lists.
        const granted = await newEntity();
        const user = await caller(mode, granted.id);
        const res = await h.t.request('POST', kind.path, {
          token: user.token,
          body: { name: uniqueName('new') },
        });
        expect(res.status).toBe(create);
        const noun = kind.field
          .replace('Access', '')
          .replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`);
        if (create === 403)
          expect(res.body).toEqual({
            error: `Creating a ${noun} needs "*" in your ${kind.field} list.`,
            code: 'forbidden',
          });
      },
    );

    it.each(MATRIX)(
      '$mode: updating a granted entity answers $updateA and another one $updateB',
      async ({ mode, updateA, updateB }) => {
        const a = await newEntity();
        const b = await newEntity();
        const user = await caller(mode, a.id);
        const resA = await h.t.request('PUT', `${kind.path}/${a.id}`, {
          token: user.token,
          body: { name: uniqueName('renamed') },
        });
        expect(resA.status).toBe(updateA);
        if (updateA === 200) expect(resA.body.updatedByUserId).toBe(user.id);
        const resB = await h.t.request('PUT', `${kind.path}/${b.id}`, {
          token: user.token,
          body: { name: uniqueName('renamed') },
        });
        expect(resB.status).toBe(updateB);
      },
    );

    it.each(MATRIX)(
      '$mode: deleting follows the access list and the deletion rule',
      async ({ mode, updateA, updateB }) => {
        const a = await newEntity();
        const b = await newEntity();
        const user = await caller(mode, a.id);
        // Collections go only by their creator (admins included); the others by anyone with access.
        const madeByCaller = user.id === h.t.adminId;
        const noun = kind.field
          .replace('Access', '')
          .replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`);
        // Each refusal says which rule: the access list, or the creator rule.
        const expected = (granted: number) =>
          granted !== 200
            ? [403, `You have no access to this ${noun}: it is not in your ${kind.field} list.`]
            : kind.creatorOnly && !madeByCaller
              ? [403, `Only the ${noun}'s creator can delete it.`]
              : [204, undefined];
        const answer = async (id: string) => {
          const res = await h.t.request('DELETE', `${kind.path}/${id}`, { token: user.token });
          return [res.status, res.body?.error];
        };
        expect(await answer(b.id)).toEqual(expected(updateB));
        expect(await answer(a.id)).toEqual(expected(updateA));
      },
    );
  });

  describe('inside a collection (collectionAccess)', () => {
    let a: any;
    let b: any;
    beforeAll(async () => {
      a = await h.collection();
      b = await h.collection();
    });

    const INSIDE: { mode: Mode; onA: number; onB: number }[] = [
      { mode: 'wildcard', onA: 200, onB: 200 },
      { mode: 'specific ids', onA: 200, onB: 403 },
      { mode: 'empty list', onA: 403, onB: 403 },
      { mode: 'admin', onA: 200, onB: 200 },
    ];
    const userFor = async (mode: Mode) =>
      mode === 'admin'
        ? { id: h.t.adminId, token: h.t.adminToken }
        : h.user({
            collectionAccess: mode === 'wildcard' ? ['*'] : mode === 'specific ids' ? [a.id] : [],
          });

    it.each(INSIDE)(
      '$mode: listing folders, requests and documents answers $onA in a granted collection and $onB elsewhere',
      async ({ mode, onA, onB }) => {
        const user = await userFor(mode);
        for (const segment of ['folders', 'requests', 'documents']) {
          expect(
            (await h.t.request('GET', `/collections/${a.id}/${segment}`, { token: user.token }))
              .status,
          ).toBe(onA);
          expect(
            (await h.t.request('GET', `/collections/${b.id}/${segment}`, { token: user.token }))
              .status,
          ).toBe(onB);
        }
      },
    );

    it.each(INSIDE)(
      '$mode: creating folders, requests and documents answers $onA in a granted collection and $onB elsewhere',
      async ({ mode, onA, onB }) => {
        const user = await userFor(mode);
        for (const segment of ['folders', 'requests', 'documents']) {
          const body = { name: uniqueName(segment) };
          expect(
            (
              await h.t.request('POST', `/collections/${a.id}/${segment}`, {
                token: user.token,
                body,
              })
            ).status,
          ).toBe(onA);
          expect(
            (
              await h.t.request('POST', `/collections/${b.id}/${segment}`, {
                token: user.token,
                body,
              })
            ).status,
          ).toBe(onB);
        }
      },
    );

    it.each(INSIDE)(
      '$mode: renaming, moving and deleting a folder answers $onB outside the grant',
      async ({ mode, onB }) => {
        const user = await userFor(mode);
        const folder = await h.folder(b.id);
        const rename = await h.t.request('PATCH', `/folders/${folder.id}`, {
          token: user.token,
          body: { name: uniqueName('renamed') },
        });
        expect(rename.status).toBe(onB);
        const move = await h.t.request('PUT', `/folders/${folder.id}/move`, {
          token: user.token,
          body: { parentFolderId: null, sortOrder: 0 },
        });
        expect(move.status).toBe(onB);
        expect(
          (await h.t.request('DELETE', `/folders/${folder.id}`, { token: user.token })).status,
        ).toBe(onB === 200 ? 204 : 403);
      },
    );

    it.each(INSIDE)(
      '$mode: reading or changing a request outside the grant answers $onB',
      async ({ mode, onB }) => {
        const user = await userFor(mode);
        const request = await h.request(b.id);
        const update = await h.t.request('PUT', `/requests/${request.id}`, {
          token: user.token,
          body: { collectionId: b.id, url: 'https://example.test' },
        });
        expect(update.status).toBe(onB);
        const reorder = await h.t.request('PUT', `/collections/${b.id}/requests/reorder`, {
          token: user.token,
          body: { folderId: null, orderedRequestIds: [request.id] },
        });
        expect(reorder.status).toBe(onB === 200 ? 204 : 403);
        const move = await h.t.request('PUT', `/requests/${request.id}/move`, {
          token: user.token,
          body: { folderId: null, index: 0 },
        });
        expect(move.status).toBe(onB === 200 ? 204 : 403);
      },
    );
  });
});
