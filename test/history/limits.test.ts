/**
 * History limits: `history.maxRevisionsPerRecord` applied by each change in its own transaction
 * (the background pruning never runs here), the byte budget per author and per tenant
 * (`maxBytesPerUser`, `maxBytesPerTenant`: 409 naming the limit, deletions still allowed), bytes
 * given back by an admin's purge, by pruning on the hub's clock, and seen by a second hub on the
 * same database.
 */
import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../kernel/clock.ts';
import { eventually } from '../helpers/async.ts';
import { allDrivers } from '../helpers/drivers.ts';
import { EVERY_ENTITY, fixtures } from '../helpers/fixtures.ts';
import { startTestHub, uniqueName, useTestHub, type TestHub } from '../helpers/hub.ts';

const KB = 1024;
const DAY = 86_400_000;
/** Content that makes a document's revision a little over `kb` KiB. */
const content = (kb: number, tag: string) => `${tag}:`.padEnd(kb * KB, 'x');

/** A new tenant with a collection made by its admin: the budget of each test starts at zero. */
async function newTenant(t: TestHub) {
  const tenant = uniqueName('t')
    .replace(/[^A-Za-z0-9_-]/g, '')
    .slice(0, 60);
  await t.hub.identity.tenants.create(tenant, 'Budget');
  const admin = await t.createUser({ role: 'admin' }, tenant);
  const made = await t.request('POST', '/collections', {
    token: admin.token,
    tenant,
    body: { name: 'budget' },
  });
  expect(made.status, made.text).toBe(200);
  const user = () => t.createUser(EVERY_ENTITY, tenant);
  const doc = async (token: string) => {
    const res = await t.request('POST', `/collections/${made.body.id}/documents`, {
      token,
      tenant,
      body: { name: uniqueName('doc') },
    });
    expect(res.status, res.text).toBe(200);
    return res.body.id as string;
  };
  const save = (token: string, id: string, kb: number, tag: string) =>
    t.request('PUT', `/documents/${id}`, {
      token,
      tenant,
      body: { collectionId: made.body.id, content: content(kb, tag) },
    });
  return { tenant, admin, collectionId: made.body.id as string, user, doc, save };
}

/** Never a background pruning during a test: what is removed, a change removed. */
const NO_PRUNING = { keepDays: 0, pruneIntervalSeconds: 86_400 };
const BUDGET = {
  multitenancy: { enabled: true },
  history: { ...NO_PRUNING, maxBytesPerUser: 60 * KB, maxBytesPerTenant: 100 * KB },
};

describe.each(allDrivers())('revisions per record on %s', (driver) => {
  const t = useTestHub(driver, {
    config: { history: { ...NO_PRUNING, maxRevisionsPerRecord: 5 } },
  });
  const h = fixtures(t);
  const versions = async (path: string) => {
    const res = await t.request('GET', `${path}/revisions?limit=100`);
    expect(res.status, res.text).toBe(200);
    return (res.body.revisions as any[]).map((r) => r.version);
  };
  const audited = async (id: string) =>
    ((await t.request('GET', `/admin/audit?targetId=${id}&limit=100`)).body.events as any[]).map(
      (event) => event.action,
    );

  it('keeps a request within maxRevisionsPerRecord after quick saves, one at a time and together', async () => {
    const col = await h.collection();
    const req = await h.request(col.id);
    for (let i = 0; i < 12; i++) {
      const res = await t.request('PUT', `/requests/${req.id}`, {
        body: { collectionId: col.id, url: `https://one.test/${i}` },
      });
      expect(res.status, res.text).toBe(200);
    }
    expect(await versions(`/requests/${req.id}`)).toEqual([13, 12, 11, 10, 9]);
    const together = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        t.request('PUT', `/requests/${req.id}`, {
          body: { collectionId: col.id, url: `https://two.test/${i}` },
        }),
      ),
    );
    for (const res of together) expect(res.status, res.text).toBe(200);
    // With If-Match at the limit too.
    const matched = await t.request('PUT', `/requests/${req.id}`, {
      headers: { 'if-match': '"21"' },
      body: { collectionId: col.id, url: 'https://three.test' },
    });
    expect(matched.status, matched.text).toBe(200);
    expect(matched.headers.get('etag')).toBe('"22"');
    expect(await versions(`/requests/${req.id}`)).toEqual([22, 21, 20, 19, 18]);
    // The removed revisions' audit events stay.
    const events = await audited(req.id);
    expect(events).toHaveLength(22);
    expect(events.at(-1)).toBe('request.created');
  });

  it('keeps collections and folders within maxRevisionsPerRecord too', async () => {
    const col = await h.collection();
    const folder = await h.folder(col.id);
    for (let i = 0; i < 8; i++) {
      const renamed = await t.request('PUT', `/collections/${col.id}`, { body: { name: `c${i}` } });
      expect(renamed.status, renamed.text).toBe(200);
      const folderRenamed = await t.request('PATCH', `/folders/${folder.id}`, {
        body: { name: `f${i}` },
      });
      expect(folderRenamed.status, folderRenamed.text).toBe(200);
    }
    expect(await versions(`/collections/${col.id}`)).toEqual([9, 8, 7, 6, 5]);
    expect(await versions(`/folders/${folder.id}`)).toEqual([9, 8, 7, 6, 5]);
  });
});

describe.each(allDrivers())('the history budget on %s', (driver) => {
  const t = useTestHub(driver, { config: BUDGET });
  const h = fixtures(t);

  it("refuses an author's changes once maxBytesPerUser is reached, never a deletion, until an admin purges", async () => {
    const space = await newTenant(t);
    const [alice, bob] = [await space.user(), await space.user()];
    const doc = await space.doc(alice.token);
    let refused: Awaited<ReturnType<typeof space.save>> | undefined;
    for (let i = 0; i < 10 && !refused; i++) {
      const res = await space.save(alice.token, doc, 10, `a${i}`);
      if (res.status !== 200) refused = res;
    }
    expect(refused?.status).toBe(409);
    expect(refused?.body.error).toMatch(/history\.maxBytesPerUser/);
    expect(refused?.body.error).toMatch(/of 61440 bytes/);
    // Every change of hers: a create too; another author is not held back.
    const create = await t.request('POST', `/collections/${space.collectionId}/requests`, {
      token: alice.token,
      tenant: space.tenant,
      body: { name: 'more' },
    });
    expect(create.status).toBe(409);
    expect((await space.save(bob.token, await space.doc(bob.token), 1, 'b')).status).toBe(200);
    // Deleting is never refused; nor is reading.
    const deleted = await t.request('DELETE', `/documents/${doc}`, {
      token: alice.token,
      tenant: space.tenant,
    });
    expect(deleted.status, deleted.text).toBe(204);
    // Only an admin purges; then she saves again.
    const path = `/admin/documents/${doc}/revisions`;
    const asUser = await t.request('DELETE', path, { token: alice.token, tenant: space.tenant });
    expect(asUser.status).toBe(403);
    const purged = await t.request('DELETE', path, {
      token: space.admin.token,
      tenant: space.tenant,
    });
    expect(purged.status, purged.text).toBe(200);
    expect(purged.body.purged).toBeGreaterThanOrEqual(5);
    const again = await space.save(alice.token, await space.doc(alice.token), 10, 'again');
    expect(again.status, again.text).toBe(200);
  });

  it('refuses every change in a tenant once maxBytesPerTenant is reached', async () => {
    const space = await newTenant(t);
    let refused: Awaited<ReturnType<typeof space.save>> | undefined;
    // Authors under their own budget fill the tenant's.
    for (let a = 0; a < 4 && !refused; a++) {
      const author = await space.user();
      const doc = await space.doc(author.token);
      for (let i = 0; i < 3 && !refused; i++) {
        const res = await space.save(author.token, doc, 10, `${a}.${i}`);
        if (res.status !== 200) refused = res;
      }
    }
    expect(refused?.status).toBe(409);
    expect(refused?.body.error).toMatch(/history\.maxBytesPerTenant/);
    const newcomer = await space.user();
    const create = await t.request('POST', `/collections/${space.collectionId}/documents`, {
      token: newcomer.token,
      tenant: space.tenant,
      body: { name: 'late' },
    });
    expect(create.status).toBe(409);
    expect(create.body.error).toMatch(/history\.maxBytesPerTenant/);
    // Other tenants are not affected.
    const col = await h.collection();
    expect((await h.request(col.id)).id).toBeTruthy();
  });

  it('counts what another hub on the same database saved', async () => {
    const space = await newTenant(t);
    const alice = await space.user();
    const doc = await space.doc(alice.token);
    const other = await startTestHub({ driver: t.driver, config: BUDGET });
    try {
      for (let i = 0; i < 6; i++) {
        const res = await other.request('PUT', `/documents/${doc}`, {
          token: alice.token,
          tenant: space.tenant,
          body: { collectionId: space.collectionId, content: content(10, `o${i}`) },
        });
        expect(res.status, res.text).toBe(200);
      }
      // Written to the counters within a second, read again within another.
      await eventually(
        async () => (await space.save(alice.token, doc, 1, 'here')).status === 409,
        10_000,
        "the other hub's bytes",
      );
    } finally {
      await other.close();
    }
  });
});

describe.each(allDrivers())('history budget given back by pruning on %s', (driver) => {
  const clock = createManualClock(new Date('2026-03-01T00:00:00.000Z'));
  const t = useTestHub(driver, {
    clock,
    config: {
      history: {
        keepDays: 1,
        maxBytesPerUser: 30 * KB,
        maxBytesPerTenant: 0,
        pruneIntervalSeconds: 1,
      },
    },
  });
  const h = fixtures(t);

  it('lets an author save again once their revisions are older than keepDays', async () => {
    const alice = await h.user(EVERY_ENTITY);
    const col = await h.collection();
    const doc = await h.document(col.id, {}, alice.token);
    const save = (tag: string) =>
      t.request('PUT', `/documents/${doc.id}`, {
        token: alice.token,
        body: { collectionId: col.id, content: content(10, tag) },
      });
    let status = 200;
    for (let i = 0; i < 6 && status === 200; i++) status = (await save(`s${i}`)).status;
    expect(status).toBe(409);
    clock.advance(2 * DAY);
    await eventually(async () => (await save('later')).status === 200, 10_000, 'pruning');
    const kept = await t.request('GET', `/documents/${doc.id}/revisions`, { token: alice.token });
    expect(kept.body.revisions.map((r: any) => r.at)).toEqual([clock.iso()]);
  });
});
