/**
 * The MLS relay on an E2EE hub: commits (the epoch moving one step at a time, paging),
 * welcomes, group state, and the checks in front of them: group id, target access, sender device.
 */
import { describe, expect, it } from 'vitest';
import { httpDrivers } from '../helpers/drivers.ts';
import { useMlsHub } from './setup.ts';

describe.each(httpDrivers())('MLS relay on %s', (driver) => {
  const h = useMlsHub(driver);
  const state = (group: string, token?: string) =>
    h.t.request(
      'GET',
      `/discussion-mls/group-state/${encodeURIComponent(group)}`,
      token ? { token } : {},
    );
  const epochs = async (query: string) => {
    const res = await h.t.request('GET', `/discussion-mls/commits?${query}`);
    expect(res.status, res.text).toBe(200);
    return { epochs: res.body.commits.map((c: any) => c.epoch), nextCursor: res.body.nextCursor };
  };

  it('stores a commit, creates the group state and marks the sender device as seen', async () => {
    const device = await h.enroll();
    const group = await h.group();
    const res = await h.commit({
      mlsGroupId: group,
      epoch: 0,
      senderDeviceId: device.deviceId.toUpperCase(),
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      mlsGroupId: group,
      epoch: 0,
      ciphertext: 'Y2lwaGVy',
      senderDeviceId: device.deviceId,
      createdAt: expect.any(String),
    });
    const st = await state(group);
    expect(st.status).toBe(200);
    expect(st.body).toEqual({
      mlsGroupId: group,
      currentEpoch: 0,
      createdAt: res.body.createdAt,
      updatedAt: res.body.createdAt,
    });
    const mine = await h.t.request('GET', '/devices');
    expect(mine.body.devices.find((d: any) => d.id === device.id).lastSeenAt).toBe(
      res.body.createdAt,
    );
  });

  it('lets the first commit set the epoch and then moves it one step at a time', async () => {
    const device = await h.enroll();
    const group = await h.group();
    for (const epoch of [5, 6, 7])
      expect(
        (await h.commit({ mlsGroupId: group, epoch, senderDeviceId: device.deviceId })).status,
      ).toBe(201);
    expect((await state(group)).body.currentEpoch).toBe(7);
  });

  it('refuses a commit that skips ahead with 409 naming the expected epoch and stores nothing', async () => {
    const device = await h.enroll();
    const group = await h.group();
    const first = await h.commit({ mlsGroupId: group, epoch: 0, senderDeviceId: device.deviceId });
    expect(first.status).toBe(201);
    const before = (await state(group)).body;
    const seen = async () =>
      (await h.t.request('GET', '/devices')).body.devices.find((d: any) => d.id === device.id)
        .lastSeenAt;
    const seenBefore = await seen();
    for (const epoch of [Number.MAX_SAFE_INTEGER, 2]) {
      const jump = await h.commit({ mlsGroupId: group, epoch, senderDeviceId: device.deviceId });
      expect([jump.status, jump.body]).toEqual([
        409,
        {
          error: `Epoch ${epoch} skips ahead of this MLS group; the next commit must be for epoch 1.`,
          code: 'conflict',
        },
      ]);
    }
    expect((await state(group)).body).toEqual(before);
    expect(await epochs(`mlsGroupId=${group}`)).toEqual({ epochs: [0], nextCursor: undefined });
    expect(await seen()).toBe(seenBefore);
    // The group is not frozen: the next epoch still goes through.
    const next = await h.commit({ mlsGroupId: group, epoch: 1, senderDeviceId: device.deviceId });
    expect(next.status).toBe(201);
    expect((await state(group)).body.currentEpoch).toBe(1);
  });

  it('refuses a first commit past 2^32 with 409 and creates no group state, so a new group cannot be frozen', async () => {
    const device = await h.enroll();
    const group = await h.group();
    for (const epoch of [Number.MAX_SAFE_INTEGER, 2 ** 32 + 1]) {
      const first = await h.commit({ mlsGroupId: group, epoch, senderDeviceId: device.deviceId });
      expect([first.status, first.body]).toEqual([
        409,
        {
          error: `Epoch ${epoch} is too far ahead for the first commit of this MLS group; a group's first commit carries an epoch of at most 4294967296.`,
          code: 'conflict',
        },
      ]);
    }
    expect(await epochs(`mlsGroupId=${group}`)).toEqual({ epochs: [], nextCursor: undefined });
    // The group's real first commit still sets it.
    const real = await h.commit({ mlsGroupId: group, epoch: 0, senderDeviceId: device.deviceId });
    expect(real.status).toBe(201);
    expect((await state(group)).body.currentEpoch).toBe(0);
  });

  it('refuses a replay of the current or an older epoch with 409 and keeps the group state', async () => {
    const device = await h.enroll();
    const group = await h.group();
    for (const epoch of [3, 4])
      await h.commit({ mlsGroupId: group, epoch, senderDeviceId: device.deviceId });
    const before = (await state(group)).body;
    for (const epoch of [4, 3, 0]) {
      const replay = await h.commit({
        mlsGroupId: group,
        epoch,
        senderDeviceId: device.deviceId,
        ciphertext: 'replayed',
      });
      expect([replay.status, replay.body]).toEqual([
        409,
        {
          error: `A commit for epoch ${epoch} of this MLS group already exists; the next commit must be for epoch 5.`,
          code: 'conflict',
        },
      ]);
    }
    expect((await state(group)).body).toEqual(before);
    const list = await h.t.request('GET', `/discussion-mls/commits?mlsGroupId=${group}`);
    expect(list.body.commits.map((c: any) => [c.epoch, c.ciphertext])).toEqual([
      [3, 'Y2lwaGVy'],
      [4, 'Y2lwaGVy'],
    ]);
  });

  it('answers 409 for a second commit of the same epoch, and keeps the first', async () => {
    const device = await h.enroll();
    const group = await h.group();
    expect(
      (
        await h.commit({
          mlsGroupId: group,
          epoch: 3,
          senderDeviceId: device.deviceId,
          ciphertext: 'first',
        })
      ).status,
    ).toBe(201);
    const dup = await h.commit({
      mlsGroupId: group,
      epoch: 3,
      senderDeviceId: device.deviceId,
      ciphertext: 'second',
    });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toBe(
      'A commit for epoch 3 of this MLS group already exists; the next commit must be for epoch 4.',
    );
    const list = await h.t.request('GET', `/discussion-mls/commits?mlsGroupId=${group}`);
    expect(list.body.commits.map((c: any) => c.ciphertext)).toEqual(['first']);
  });

  it('gives exactly one 201 and one 409 for two concurrent commits of the same epoch', async () => {
    const device = await h.enroll();
    const group = await h.group();
    const results = await Promise.all(
      [0, 1].map(() => h.commit({ mlsGroupId: group, epoch: 0, senderDeviceId: device.deviceId })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    expect((await state(group)).body.currentEpoch).toBe(0);
  });

  it('gives exactly one 201 among concurrent commits of the same next epoch; the others get 409', async () => {
    const device = await h.enroll();
    const group = await h.group();
    await h.commit({ mlsGroupId: group, epoch: 7, senderDeviceId: device.deviceId });
    const results = await Promise.all(
      ['a', 'b', 'c', 'd'].map((ciphertext) =>
        h.commit({ mlsGroupId: group, epoch: 8, senderDeviceId: device.deviceId, ciphertext }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
    for (const refused of results.filter((r) => r.status === 409))
      expect(refused.body.error).toBe(
        'A commit for epoch 8 of this MLS group already exists; the next commit must be for epoch 9.',
      );
    const winner = results.find((r) => r.status === 201)!.body;
    const list = await h.t.request('GET', `/discussion-mls/commits?mlsGroupId=${group}`);
    expect(list.body.commits.map((c: any) => [c.epoch, c.id])).toEqual([
      [7, expect.any(String)],
      [8, winner.id],
    ]);
    expect((await state(group)).body.currentEpoch).toBe(8);
  });

  it('lets exactly one of concurrent first commits of different epochs set the epoch', async () => {
    const device = await h.enroll();
    const group = await h.group();
    const results = await Promise.all(
      [10, 20, 30, 40].map((epoch) =>
        h.commit({ mlsGroupId: group, epoch, senderDeviceId: device.deviceId }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
    const winner = results.find((r) => r.status === 201)!.body.epoch;
    expect((await state(group)).body.currentEpoch).toBe(winner);
    expect(await epochs(`mlsGroupId=${group}`)).toEqual({
      epochs: [winner],
      nextCursor: undefined,
    });
  });

  it('pages commits in ascending epoch order after a cursor', async () => {
    const device = await h.enroll();
    const group = await h.group();
    for (const epoch of [0, 1, 2, 3, 4])
      await h.commit({ mlsGroupId: group, epoch, senderDeviceId: device.deviceId });
    expect(await epochs(`mlsGroupId=${group}`)).toEqual({
      epochs: [0, 1, 2, 3, 4],
      nextCursor: undefined,
    });
    expect(await epochs(`mlsGroupId=${group}&limit=2`)).toEqual({
      epochs: [0, 1],
      nextCursor: '1',
    });
    expect(await epochs(`mlsGroupId=${group}&limit=2&cursor=1`)).toEqual({
      epochs: [2, 3],
      nextCursor: '3',
    });
    expect(await epochs(`mlsGroupId=${group}&limit=2&cursor=3`)).toEqual({
      epochs: [4],
      nextCursor: undefined,
    });
    expect(await epochs(`mlsGroupId=${group}&cursor=4`)).toEqual({
      epochs: [],
      nextCursor: undefined,
    });
  });

  it.each([
    ['cursor=abc', /^cursor: /],
    ['cursor=-1', /^cursor: /],
    ['cursor=1.5', /^cursor: /],
    ['cursor=99999999999999999', /^cursor: /],
    ['limit=0', /^limit: /],
    ['limit=101', /^limit: /],
    ['limit=ten', /^limit: /],
    ['limit=1&limit=2', /^limit: /],
    ['limit=0x10', /^limit: /],
  ])('answers 400 for a commit list with %s', async (query, message) => {
    const group = await h.group();
    const res = await h.t.request('GET', `/discussion-mls/commits?mlsGroupId=${group}&${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(message);
  });

  it('stores welcomes and lists them oldest first, filtered by recipient', async () => {
    const group = await h.group();
    const [r1, r2] = [crypto.randomUUID(), crypto.randomUUID()];
    const ids: string[] = [];
    for (const recipient of [r1, r2, r1]) {
      const res = await h.t.request('POST', '/discussion-mls/welcomes', {
        body: {
          mlsGroupId: group,
          recipientDeviceId: recipient,
          ciphertext: 'w',
          ratchetTree: 'tree',
        },
      });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(String),
        mlsGroupId: group,
        recipientDeviceId: recipient,
        ciphertext: 'w',
        ratchetTree: 'tree',
        createdAt: expect.any(String),
      });
      ids.push(res.body.id);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const all = await h.t.request('GET', `/discussion-mls/welcomes?mlsGroupId=${group}`);
    expect(all.body.welcomes.map((w: any) => w.id)).toEqual(ids);
    const one = await h.t.request(
      'GET',
      `/discussion-mls/welcomes?mlsGroupId=${group}&recipientDeviceId=${r1.toUpperCase()}`,
    );
    expect(one.body.welcomes.map((w: any) => w.id)).toEqual([ids[0], ids[2]]);
    const bad = await h.t.request(
      'GET',
      `/discussion-mls/welcomes?mlsGroupId=${group}&recipientDeviceId=nope`,
    );
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^recipientDeviceId: /);
  });

  it('treats every spelling of a group id as one group, stored and returned canonically', async () => {
    const device = await h.enroll();
    const col = await h.collection();
    const canonical = `thread:collection:${col.id}`;
    const upper = `THREAD:COLLECTION:${col.id}`;
    const commit = (mlsGroupId: string, epoch: number, ciphertext?: string) =>
      h.commit({
        mlsGroupId,
        epoch,
        senderDeviceId: device.deviceId,
        ...(ciphertext === undefined ? {} : { ciphertext }),
      });
    const first = await commit(canonical, 1, 'first');
    expect(first.status).toBe(201);
    const dup = await commit(upper, 1, 'second');
    expect(dup.status).toBe(409);
    const next = await commit(` Thread:Collection:${col.id} `, 2);
    expect(next.status).toBe(201);
    expect(next.body.mlsGroupId).toBe(canonical);
    for (const spelling of [canonical, upper]) {
      const list = await h.t.request(
        'GET',
        `/discussion-mls/commits?mlsGroupId=${encodeURIComponent(spelling)}`,
      );
      expect(list.body.commits.map((c: any) => [c.mlsGroupId, c.epoch, c.ciphertext])).toEqual([
        [canonical, 1, 'first'],
        [canonical, 2, 'Y2lwaGVy'],
      ]);
      expect((await state(spelling)).body).toMatchObject({
        mlsGroupId: canonical,
        currentEpoch: 2,
      });
    }
    const run = await h.t.request('POST', '/run-results', {
      body: {
        payload: { harborclientExport: 'request-run-results', results: [{ status: 'passed' }] },
      },
    });
    const welcome = await h.t.request('POST', '/discussion-mls/welcomes', {
      body: {
        mlsGroupId: `THREAD:RUNRESULT:${run.body.id}`,
        recipientDeviceId: device.deviceId,
        ciphertext: 'w',
        ratchetTree: 't',
      },
    });
    expect(welcome.body.mlsGroupId).toBe(`thread:runResult:${run.body.id}`);
    const welcomes = await h.t.request(
      'GET',
      `/discussion-mls/welcomes?mlsGroupId=thread:runresult:${run.body.id}`,
    );
    expect(welcomes.body.welcomes.map((w: any) => w.id)).toEqual([welcome.body.id]);
  });

  it('pages welcomes with limit and an opaque cursor', async () => {
    const group = await h.group();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await h.t.request('POST', '/discussion-mls/welcomes', {
        body: {
          mlsGroupId: group,
          recipientDeviceId: crypto.randomUUID(),
          ciphertext: 'w',
          ratchetTree: 't',
        },
      });
      ids.push(res.body.id);
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const res = await h.t.request(
        'GET',
        `/discussion-mls/welcomes?mlsGroupId=${group}&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(res.status, res.text).toBe(200);
      expect(res.body.welcomes.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.welcomes.map((w: any) => w.id));
      cursor = res.body.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect([...seen].sort()).toEqual([...ids].sort());
    const all = await h.t.request('GET', `/discussion-mls/welcomes?mlsGroupId=${group}`);
    expect(all.body.welcomes.map((w: any) => w.id)).toEqual(seen);
    expect(all.body.nextCursor).toBeUndefined();
    for (const [query, message] of [
      ['limit=0', /^limit: /],
      ['limit=101', /^limit: /],
      ['limit=0x10', /^limit: /],
      ['cursor=%%%', /^cursor: /],
      [
        `cursor=${Buffer.from('2026-01-01T00:00:00.000Z|a\u0000b').toString('base64url')}`,
        /^cursor: /,
      ],
    ] as const) {
      const res = await h.t.request('GET', `/discussion-mls/welcomes?mlsGroupId=${group}&${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error).toMatch(message);
    }
  });

  it('answers 404 MLS group state not found for a group without commits', async () => {
    const res = await state(await h.group());
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('MLS group state not found');
  });

  it('refuses commits from a device that is unknown, revoked or another user’s with 403', async () => {
    const other = await h.user();
    const foreign = await h.enroll(other.token);
    const revoked = await h.enroll();
    await h.t.request('DELETE', `/devices/${revoked.id}`);
    const group = await h.group();
    for (const senderDeviceId of [crypto.randomUUID(), foreign.deviceId, revoked.deviceId]) {
      const res = await h.commit({ mlsGroupId: group, epoch: 0, senderDeviceId });
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('Sender device is not enrolled on this Team Hub');
    }
    expect((await state(group)).status).toBe(404);
  });

  it('lets users relay for targets they can reach: collections, requests and their own run results', async () => {
    const col = await h.collection();
    const user = await h.user({ collectionAccess: [col.id] });
    const device = await h.enroll(user.token);
    const req = await h.request(col.id);
    const run = await h.t.request('POST', '/run-results', {
      token: user.token,
      body: {
        payload: { harborclientExport: 'request-run-results', results: [{ status: 'passed' }] },
      },
    });
    for (const group of [
      `thread:collection:${col.id}`,
      `thread:request:${req.id}`,
      `THREAD:RUNRESULT:${run.body.id}`,
    ]) {
      expect(
        (
          await h.commit(
            { mlsGroupId: group, epoch: 0, senderDeviceId: device.deviceId },
            user.token,
          )
        ).status,
      ).toBe(201);
      expect((await state(group, user.token)).status).toBe(200);
    }
  });

  describe('checks in front of every relay route', () => {
    const routes = (group: string, deviceId: string) =>
      [
        [
          'POST',
          '/discussion-mls/commits',
          { mlsGroupId: group, epoch: 0, ciphertext: 'c', senderDeviceId: deviceId },
        ],
        ['GET', `/discussion-mls/commits?mlsGroupId=${encodeURIComponent(group)}`],
        [
          'POST',
          '/discussion-mls/welcomes',
          { mlsGroupId: group, recipientDeviceId: deviceId, ciphertext: 'c', ratchetTree: 't' },
        ],
        ['GET', `/discussion-mls/welcomes?mlsGroupId=${encodeURIComponent(group)}`],
        ['GET', `/discussion-mls/group-state/${encodeURIComponent(group)}`],
      ] as const;
    const expectAll = async (
      group: string,
      token: string,
      deviceId: string,
      status: number,
      error: string,
    ) => {
      for (const [method, path, body] of routes(group, deviceId)) {
        const res = await h.t.request(method, path, { token, ...(body ? { body } : {}) });
        expect([method, path, res.status, res.body?.error]).toEqual([method, path, status, error]);
      }
    };

    it('answer 403 naming the collectionAccess list to a user without access to the target collection', async () => {
      const col = await h.collection();
      const user = await h.user({ collectionAccess: [] });
      const device = await h.enroll(user.token);
      await expectAll(
        `thread:collection:${col.id}`,
        user.token,
        device.deviceId,
        403,
        'You have no access to this collection: it is not in your collectionAccess list.',
      );
    });

    it('answer 404 Discussion target not found for unknown and impossible targets', async () => {
      const device = await h.enroll();
      for (const group of [
        `thread:folder:${crypto.randomUUID()}`,
        `thread:request:${'r'.repeat(200)}`,
      ]) {
        await expectAll(group, h.t.adminToken, device.deviceId, 404, 'Discussion target not found');
      }
    });

    it('answer 400 Invalid MLS group id for ids outside the thread convention', async () => {
      const device = await h.enroll();
      for (const group of ['nonsense', 'thread:environment:x', 'thread:collection:']) {
        await expectAll(group, h.t.adminToken, device.deviceId, 400, 'Invalid MLS group id');
      }
    });
  });

  it.each([
    ['a missing group id', { mlsGroupId: undefined }, /^mlsGroupId: /],
    [
      'a group id over 255 characters',
      { mlsGroupId: `thread:collection:${'x'.repeat(250)}` },
      /^mlsGroupId: must be at most 255 characters$/,
    ],
    ['a negative epoch', { epoch: -1 }, /^epoch: /],
    ['a fractional epoch', { epoch: 1.5 }, /^epoch: /],
    ['an epoch given as a string', { epoch: '1' }, /^epoch: /],
    ['an epoch beyond exact integers', { epoch: 2 ** 60 }, /^epoch: /],
    ['an empty ciphertext', { ciphertext: '' }, /^ciphertext: must not be empty$/],
    [
      'a ciphertext over 262144 characters',
      { ciphertext: 'c'.repeat(262_145) },
      /^ciphertext: must be at most 262144 characters$/,
    ],
    [
      'a sender device id that is not a UUID v4',
      { senderDeviceId: 'phone' },
      /^senderDeviceId: must be a UUID v4 value$/,
    ],
  ])('answers 400 naming the field for a commit with %s', async (_name, patch, message) => {
    const group = await h.group();
    const body = {
      mlsGroupId: group,
      epoch: 0,
      ciphertext: 'c',
      senderDeviceId: crypto.randomUUID(),
      ...patch,
    };
    const res = await h.t.request('POST', '/discussion-mls/commits', { body });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(message);
  });

  it('answers 400 naming the field for malformed welcomes and non-object bodies', async () => {
    const group = await h.group();
    const base = {
      mlsGroupId: group,
      recipientDeviceId: crypto.randomUUID(),
      ciphertext: 'c',
      ratchetTree: 't',
    };
    const cases: [unknown, RegExp][] = [
      [{ ...base, ratchetTree: undefined }, /^ratchetTree: /],
      [{ ...base, ratchetTree: '   ' }, /^ratchetTree: must not be empty$/],
      [{ ...base, recipientDeviceId: 7 }, /^recipientDeviceId: /],
      ['just a string', /^Request body: /],
      [null, /^Request body: /],
    ];
    for (const [body, message] of cases) {
      const res = await h.t.request('POST', '/discussion-mls/welcomes', {
        rawBody: JSON.stringify(body),
      });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toMatch(message);
    }
    const commit = await h.t.request('POST', '/discussion-mls/commits', { rawBody: '42' });
    expect(commit.status).toBe(400);
  });
});
