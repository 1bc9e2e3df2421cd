/**
 * The notice feed and its bookkeeping: cursor paging (also across equal timestamps), access
 * filtering that never leaves a short page behind a cursor, read state, notification settings, and
 * cleanup when a target is deleted. A manual clock makes timestamps collide on purpose.
 */
import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../kernel/clock.ts';
import { httpDrivers } from '../helpers/drivers.ts';
import { DEFAULT_TENANT_ID } from '../../kernel/identity/tenants.ts';
import { noticesTable } from '../../plugins/notices/tables.ts';
import { failingDeletes } from '../helpers/drivers.ts';
import { useNoticesHub } from './setup.ts';

/**
 * A notice row about a request that no longer exists in a collection the reader may open (so the
 * feed has to read it and then hides it), written straight into the table: the way to put
 * hundreds of hidden notices before a reader quickly.
 */
function hiddenNotice(
  readerId: string,
  i: number,
  eventType: string,
  createdAt: string,
  collectionId: string,
) {
  return {
    id: `hidden-${readerId}-${String(i).padStart(4, '0')}`,
    recipientUserId: readerId,
    eventType,
    entityType: 'request',
    entityId: `gone-${i}`,
    requestId: `gone-${i}`,
    collectionId,
    folderId: null,
    runResultId: null,
    discussionThreadId: null,
    discussionCommentId: null,
    actorUserId: null,
    displayMetadata: { actorName: 'x', targetLabel: 'gone' },
    createdAt,
    readAt: null,
  };
}

describe.each(httpDrivers())('notice feed (%s)', (kind) => {
  const clock = createManualClock(new Date('2026-03-01T10:00:00.000Z'));
  const f = useNoticesHub(kind, { clock });

  /** `count` mention notices for a recipient, all at the current clock time. */
  const { mention } = f;
  async function pages(token: string, limit: number) {
    const all: any[][] = [];
    let cursor: string | undefined;
    do {
      const page = await f.notices(token, `?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
      all.push(page.notices);
      cursor = page.nextCursor;
    } while (cursor);
    return all;
  }

  it('pages newest first with an opaque cursor, also through identical timestamps', async () => {
    const owner = await f.user({ collectionAccess: ['*'] });
    const collection = await f.collection(owner.token);
    const reader = await f.user({ collectionAccess: [collection.id] });
    await mention(reader, collection.id, 2);
    clock.advance(1000);
    await mention(reader, collection.id, 5);
    const result = await pages(reader.token, 3);
    expect(result.map((page) => page.length)).toEqual([3, 3, 1]);
    const flat = result.flat();
    expect(new Set(flat.map((n) => n.id)).size).toBe(7);
    const keys = flat.map((n) => `${n.createdAt}|${n.id}`);
    expect(keys).toEqual([...keys].sort().reverse());
    expect(flat.slice(0, 5).every((n) => n.createdAt === '2026-03-01T10:00:01.000Z')).toBe(true);
    expect((await f.notices(reader.token)).nextCursor).toBeUndefined();
  });

  it('fills every page with readable notices when access to some targets was revoked', async () => {
    const owner = await f.user({ collectionAccess: ['*'] });
    const [kept, revoked] = [await f.collection(owner.token), await f.collection(owner.token)];
    const reader = await f.user({ collectionAccess: [kept.id, revoked.id] });
    for (let i = 0; i < 4; i++) {
      clock.advance(10);
      await mention(reader, revoked.id, 3);
      await mention(reader, kept.id, 1);
    }
    const res = await f.t.request('PUT', `/admin/users/${reader.id}`, {
      body: { collectionAccess: [kept.id] },
    });
    expect(res.status, res.text).toBe(200);
    const result = await pages(reader.token, 3);
    expect(result.map((page) => page.length)).toEqual([3, 1]);
    expect(result.flat().every((n) => n.collectionId === kept.id)).toBe(true);
  });

  it.each([
    ['not base64', '!!!'],
    ['not JSON', Buffer.from('nope').toString('base64url')],
    ['the wrong shape', Buffer.from(JSON.stringify({ createdAt: 'x' })).toString('base64url')],
    ['a bad timestamp', Buffer.from(JSON.stringify(['yesterday', 'id'])).toString('base64url')],
  ])('rejects a cursor that is %s with 400 naming cursor', async (_, cursor) => {
    const res = await f.t.request('GET', `/notices?cursor=${encodeURIComponent(cursor)}`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^cursor: /);
  });

  it.each([
    ['a NUL in the id', '2026-03-01T10:00:00.000Z|a\u0000b'],
    [
      'bytes that are not UTF-8 in the id',
      Buffer.concat([Buffer.from('2026-03-01T10:00:00.000Z|a'), Buffer.from([0xff, 0xfe])]),
    ],
    ['an empty id', '2026-03-01T10:00:00.000Z|'],
    ['an impossible date', '2026-02-30T10:00:00.000Z|a'],
  ])('rejects a cursor with %s with 400 naming cursor, never a storage error', async (_, text) => {
    const cursor = Buffer.from(text).toString('base64url');
    const res = await f.t.request('GET', `/notices?cursor=${cursor}`);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('cursor: Invalid notice list cursor');
  });

  it('bounds the scan past unreadable notices and hands out a cursor that reaches the readable one', async () => {
    const owner = await f.user({ collectionAccess: ['*'] });
    const collection = await f.collection(owner.token);
    const reader = await f.user({ collectionAccess: [collection.id] });
    await mention(reader, collection.id, 1);
    const [readable] = (await f.notices(reader.token)).notices;
    // Newer than the readable notice: far more hidden notices than one request may read with limit=1.
    const store = f.t.hub.driver().forTenant('__default__');
    const { MAX_BATCHES_PER_PAGE } = await import('../../plugins/notices/feed.ts');
    const hidden = MAX_BATCHES_PER_PAGE * 20 + 30;
    const base = Date.parse(readable.createdAt);
    for (let i = 1; i <= hidden; i++) {
      await store
        .table(noticesTable)
        .insert(
          hiddenNotice(reader.id, i, 'mention', new Date(base + i).toISOString(), collection.id),
        );
    }
    const first = await f.notices(reader.token, '?limit=1');
    expect(first.notices).toEqual([]);
    expect(typeof first.nextCursor).toBe('string');
    const seen: any[] = [];
    let cursor = first.nextCursor;
    let requests = 1;
    while (cursor) {
      const page = await f.notices(reader.token, `?limit=1&cursor=${cursor}`);
      seen.push(...page.notices);
      cursor = page.nextCursor;
      requests += 1;
      expect(requests).toBeLessThan(10);
    }
    expect(seen.map((n) => n.id)).toEqual([readable.id]);
    expect(requests).toBe(2);
  });

  it("never puts a hidden notice's id in the cursor when the scan bound stops on one", async () => {
    const owner = await f.user({ collectionAccess: ['*'] });
    const collection = await f.collection(owner.token);
    const reader = await f.user({ collectionAccess: [collection.id] });
    await mention(reader, collection.id, 1);
    const [readable] = (await f.notices(reader.token)).notices;
    const { MAX_BATCHES_PER_PAGE } = await import('../../plugins/notices/feed.ts');
    // With limit=1 one request reads MAX_BATCHES_PER_PAGE batches of 20 rows. The last row it reads
    // is hidden and shares its millisecond with 30 more hidden rows and the readable notice, whose
    // UUID sorts after every "hidden-…" id in the feed's (createdAt, id) descending order.
    const bound = MAX_BATCHES_PER_PAGE * 20;
    const newer = bound - 30;
    const hiddenIds: string[] = [];
    const store = f.t.store();
    for (let i = 1; i <= bound + 30; i++) {
      const id = `hidden-${reader.id}-${String(i).padStart(4, '0')}`;
      hiddenIds.push(id);
      const createdAt =
        i <= newer
          ? new Date(Date.parse(readable.createdAt) + 1 + newer - i).toISOString()
          : readable.createdAt;
      await store
        .table(noticesTable)
        .insert(hiddenNotice(reader.id, i, 'discussion.mention', createdAt, collection.id));
    }
    const seen: string[] = [];
    const cursors: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await f.notices(reader.token, `?limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...page.notices.map((n) => n.id));
      cursor = page.nextCursor;
      if (cursor) cursors.push(cursor);
      expect(cursors.length).toBeLessThan(10);
    } while (cursor);
    expect(seen).toEqual([readable.id]);
    expect(cursors.length).toBeGreaterThan(0);
    for (const text of cursors.map((c) => Buffer.from(c, 'base64url').toString('utf8'))) {
      expect(text).not.toContain('hidden-');
      expect(hiddenIds.some((id) => text.includes(id))).toBe(false);
    }
  });

  it('answers 404 to marking a notice read once the feed hides it, and leaves it unread', async () => {
    const owner = await f.user({ collectionAccess: ['*'] });
    const [kept, revoked] = [await f.collection(owner.token), await f.collection(owner.token)];
    const reader = await f.user({ collectionAccess: [kept.id, revoked.id] });
    await mention(reader, revoked.id, 1);
    const [hidden] = (await f.notices(reader.token)).notices;
    expect(hidden.collectionId).toBe(revoked.id);
    const res = await f.t.request('PUT', `/admin/users/${reader.id}`, {
      body: { collectionAccess: [kept.id] },
    });
    expect(res.status, res.text).toBe(200);

    const read = await f.t.request('POST', `/notices/${hidden.id}/read`, { token: reader.token });
    expect(read.status).toBe(404);
    expect(read.body).toEqual({ error: 'Notice not found', code: 'not_found' });
    expect(read.text).not.toContain(revoked.name);
    expect((await f.t.store().table(noticesTable).get(hidden.id))!.readAt).toBeNull();
    // Given back, the notice reads (and marks) as before: the filter is access as it is now.
    await f.t.request('PUT', `/admin/users/${reader.id}`, { body: { collectionAccess: ['*'] } });
    const again = await f.t.request('POST', `/notices/${hidden.id}/read`, { token: reader.token });
    expect(again.status, again.text).toBe(200);
    expect(again.body.displayMetadata.targetLabel).toBe(revoked.name);
  });

  it.each(['0', '101', 'ten', '0x10', '1e1', ' 5'])(
    'rejects limit=%s with 400 naming limit',
    async (limit) => {
      const res = await f.t.request('GET', `/notices?limit=${limit}`);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/^limit: /);
    },
  );

  it("counts unread notices, marks one or all as read, and hides other users' notices", async () => {
    const owner = await f.user({ collectionAccess: ['*'] });
    const collection = await f.collection(owner.token);
    const reader = await f.user({ collectionAccess: [collection.id] });
    await mention(reader, collection.id, 3);
    const count = async () =>
      (await f.t.request('GET', '/notices/unread-count', { token: reader.token })).body;
    expect(await count()).toEqual({ count: 3 });

    const [first] = (await f.notices(reader.token)).notices;
    expect(
      (await f.t.request('POST', `/notices/${first.id}/read`, { token: owner.token })).body,
    ).toEqual({ error: 'Notice not found', code: 'not_found' });
    expect(
      (await f.t.request('POST', '/notices/missing/read', { token: reader.token })).status,
    ).toBe(404);
    clock.advance(5);
    const read = await f.t.request('POST', `/notices/${first.id}/read`, { token: reader.token });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: first.id, readAt: clock.iso() });
    clock.advance(5);
    expect(
      (await f.t.request('POST', `/notices/${first.id}/read`, { token: reader.token })).body.readAt,
    ).toBe(read.body.readAt);
    expect(await count()).toEqual({ count: 2 });

    expect((await f.t.request('POST', '/notices/read-all', { token: reader.token })).body).toEqual({
      count: 2,
    });
    expect((await f.t.request('POST', '/notices/read-all', { token: reader.token })).body).toEqual({
      count: 0,
    });
    expect(await count()).toEqual({ count: 0 });
  });

  it('counts as unread only the notices the feed shows after access to a collection was revoked', async () => {
    const owner = await f.user({ collectionAccess: ['*'] });
    const [kept, revoked] = [await f.collection(owner.token), await f.collection(owner.token)];
    const reader = await f.user({ collectionAccess: [kept.id, revoked.id] });
    await mention(reader, kept.id, 2);
    await mention(reader, revoked.id, 3);
    const count = async () =>
      (await f.t.request('GET', '/notices/unread-count', { token: reader.token })).body;
    expect(await count()).toEqual({ count: 5 });
    const res = await f.t.request('PUT', `/admin/users/${reader.id}`, {
      body: { collectionAccess: [kept.id] },
    });
    expect(res.status, res.text).toBe(200);
    expect(await count()).toEqual({ count: 2 });
    expect((await f.notices(reader.token)).notices).toHaveLength(2);
    // Given back, the hidden notices count again: the filter is access as it is now.
    await f.t.request('PUT', `/admin/users/${reader.id}`, { body: { collectionAccess: ['*'] } });
    expect(await count()).toEqual({ count: 5 });
  });

  it('reads and changes the notification level, refusing unknown levels', async () => {
    const user = await f.user();
    const get = () => f.t.request('GET', '/me/notification-settings', { token: user.token });
    expect((await get()).body).toEqual({ level: 'all', updatedAt: '1970-01-01T00:00:00.000Z' });
    const put = await f.t.request('PUT', '/me/notification-settings', {
      token: user.token,
      body: { level: 'mentions' },
    });
    expect(put.body).toEqual({ level: 'mentions', updatedAt: clock.iso() });
    expect((await get()).body).toEqual(put.body);
    for (const body of [{ level: 'loud' }, {}, { level: 3 }]) {
      const bad = await f.t.request('PUT', '/me/notification-settings', {
        token: user.token,
        body,
      });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toMatch(/^level: /);
    }
  });

  it('deletes the notices of a deleted target', async () => {
    const owner = await f.user({ collectionAccess: ['*'] });
    const collection = await f.collection(owner.token);
    const request = await f.request(collection.id, { method: 'POST' }, owner.token);
    const reader = await f.user({ collectionAccess: [collection.id] });
    await mention(reader, request.id, 1, 'request');
    await mention(reader, collection.id, 1);
    expect(
      (await f.t.request('DELETE', `/requests/${request.id}`, { token: owner.token })).status,
    ).toBe(204);
    const left = (await f.notices(reader.token)).notices;
    expect(left.map((n) => n.entityType)).toEqual(['collection']);
    expect(
      (await f.t.request('GET', '/notices/unread-count', { token: reader.token })).body,
    ).toEqual({ count: 1 });
  });

  it('removes the feed, settings and thread subscriptions of a deleted account', async () => {
    const collection = await f.collection();
    const reader = await f.user({ collectionAccess: [collection.id] });
    await mention(reader, collection.id, 2);
    await f.t.request('PUT', '/me/notification-settings', {
      token: reader.token,
      body: { level: 'mentions' },
    });
    const store = f.t.hub.driver().forTenant('__default__');
    const { noticesTable, notificationSettingsTable } =
      await import('../../plugins/notices/tables.ts');
    const { subscriptionsTable } = await import('../../plugins/discussions/tables.ts');
    await store.table(subscriptionsTable).insert({
      id: `${reader.id}:root`,
      userId: reader.id,
      rootCommentId: 'root',
      entityType: 'collection',
      entityId: collection.id,
      createdAt: clock.iso(),
    });
    expect(await store.table(noticesTable).count({ recipientUserId: reader.id })).toBe(2);
    expect((await f.t.request('DELETE', `/admin/users/${reader.id}`)).status).toBe(204);
    expect(await store.table(noticesTable).count({ recipientUserId: reader.id })).toBe(0);
    expect(await store.table(notificationSettingsTable).get(reader.id)).toBeNull();
    expect(await store.table(subscriptionsTable).count({ userId: reader.id })).toBe(0);
  });

  it('deletes the notices of a deletion all together or not at all', async () => {
    const owner = await f.user({ collectionAccess: ['*'] });
    const [gone, other] = [await f.collection(owner.token), await f.collection(owner.token)];
    const request = await f.request(other.id, { method: 'POST' }, owner.token);
    const reader = await f.user({ collectionAccess: ['*'] });
    await mention(reader, gone.id, 1);
    await mention(reader, request.id, 1, 'request');
    const store = f.t.hub.driver().forTenant('__default__');
    const { noticesTable } = await import('../../plugins/notices/tables.ts');
    const { deleteNoticesOfRemoved } = await import('../../plugins/notices/cleanup.ts');
    const event = {
      tenantId: '__default__',
      removed: { collection: [gone.id], request: [request.id] },
    };
    // The first delete (the collection's notices) succeeds, the second (the request's) fails.
    await expect(deleteNoticesOfRemoved(failingDeletes(store, 2), event)).rejects.toThrow(
      'failed on purpose',
    );
    expect(await store.table(noticesTable).count({ recipientUserId: reader.id })).toBe(2);
    await deleteNoticesOfRemoved(store, event);
    expect(await store.table(noticesTable).count({ recipientUserId: reader.id })).toBe(0);
  });

  it('needs a bearer token', async () => {
    expect((await f.t.request('GET', '/notices', { token: null })).status).toBe(401);
  });
});

describe.each(httpDrivers())('notice unread count across tenants (%s)', (kind) => {
  const f = useNoticesHub(kind, { config: { multitenancy: { enabled: true } } });

  it('never counts a notice stored in another tenant', async () => {
    const collection = await f.collection();
    const reader = await f.user({ collectionAccess: [collection.id] });
    await f.mention(reader, collection.id);
    const count = async () =>
      (await f.t.request('GET', '/notices/unread-count', { token: reader.token })).body;
    expect(await count()).toEqual({ count: 1 });
    // A row in another tenant that names this reader and this collection: only tenant scoping
    // keeps it out of the count (the access filter alone would let it through).
    const tenant = `t${crypto.randomUUID().slice(0, 8)}`;
    await f.t.hub.identity.tenants.create(tenant, 'Other');
    const [mine] = (await f.notices(reader.token)).notices;
    const row = await f.t.hub
      .driver()
      .forTenant(DEFAULT_TENANT_ID)
      .table(noticesTable)
      .get(mine.id);
    await f.t.hub
      .driver()
      .forTenant(tenant)
      .table(noticesTable)
      .insert({ ...row!, id: crypto.randomUUID() });
    expect(await count()).toEqual({ count: 1 });
  });
});
