/**
 * Workspace changes reach the audit log through `entities.changed`, published inside the change's
 * transaction: the event is written with that transaction's store and rolls back with it.
 */
import { describe, expect, it } from 'vitest';
import { allDrivers } from '../helpers/drivers.ts';
import { useTestHub } from '../helpers/hub.ts';
import { EVERY_ENTITY, fixtures } from '../helpers/fixtures.ts';

describe.each(allDrivers())('workspace changes in the audit log on %s', (kind) => {
  const t = useTestHub(kind);
  const h = fixtures(t);

  const changed = (tx: unknown, id: string, extra: Record<string, unknown> = {}) =>
    t.hub.events.publishInTransaction('entities.changed', {
      store: tx,
      tenantId: '__default__',
      kind: 'request',
      id,
      name: 'Login',
      action: 'updated',
      actorId: t.adminId,
      version: 3,
      ...extra,
    });
  const eventsOf = async (targetId: string) => {
    const res = await t.request('GET', `/admin/audit?targetId=${targetId}`);
    expect(res.status, res.text).toBe(200);
    return res.body.events as any[];
  };

  it('writes <kind>.<action> with the actor and version, in the publisher transaction', async () => {
    const admin = await t.hub.identity.users.get(t.store(), t.adminId);
    await t.store().transaction(async (tx) => changed(tx, 'request-1'));
    await t.store().transaction(async (tx) =>
      changed(tx, 'page-1', {
        kind: 'live-page',
        action: 'restored',
        actorId: null,
        name: 'Docs',
      }),
    );
    const [event] = await eventsOf('request-1');
    expect(event).toMatchObject({
      action: 'request.updated',
      actor: { id: t.adminId, name: admin.name },
      target: { kind: 'request', id: 'request-1', name: 'Login' },
      tenantId: '__default__',
      details: { version: 3 },
    });
    const [restored] = await eventsOf('page-1');
    expect(restored).toMatchObject({ action: 'live-page.restored', actor: null });
  });

  it('rolls the event back when the publisher transaction fails', async () => {
    await expect(
      t.store().transaction(async (tx) => {
        await changed(tx, 'request-2');
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect(await eventsOf('request-2')).toEqual([]);
  });
  it('records the HTTP changes of a request, a folder and a collection with who made them', async () => {
    const alice = await h.user(EVERY_ENTITY);
    const col = await h.collection();
    const folder = await h.folder(col.id);
    const req = await h.request(col.id, { name: 'Login' }, alice.token);
    const renamed = await t.request('PUT', `/requests/${req.id}`, {
      token: alice.token,
      body: { collectionId: col.id, name: 'Sign in' },
    });
    expect(renamed.status, renamed.text).toBe(200);
    const moved = await t.request('PUT', `/requests/${req.id}`, {
      token: alice.token,
      body: { collectionId: col.id, folderId: folder.id },
    });
    expect(moved.status, moved.text).toBe(200);
    const gone = await t.request('DELETE', `/requests/${req.id}`, { token: alice.token });
    expect(gone.status, gone.text).toBe(204);

    const events = await eventsOf(req.id);
    expect(events.map((event) => event.action)).toEqual([
      'request.deleted',
      'request.moved',
      'request.updated',
      'request.created',
    ]);
    for (const event of events) expect(event.actor?.id).toBe(alice.id);
    expect(events[2]).toMatchObject({ target: { kind: 'request', name: 'Sign in' } });
    expect((await eventsOf(folder.id)).map((event) => event.action)).toEqual(['folder.created']);
    expect((await eventsOf(col.id)).map((event) => event.action)).toEqual(['collection.created']);
  });
});
