/**
 * Workspace changes in the audit log are read from their revisions, written in the change's own
 * transaction: an event says who, from where and in which request, and rolls back with its change.
 */
import { describe, expect, it } from 'vitest';
import { allDrivers } from '../helpers/drivers.ts';
import { useTestHub } from '../helpers/hub.ts';
import { EVERY_ENTITY, fixtures } from '../helpers/fixtures.ts';
import { DEFAULT_TENANT_ID } from '../../kernel/identity/tenants.ts';
import { CLI_CONTEXT } from '../../kernel/storage/context.ts';
import type { Store } from '../../kernel/storage/contract.ts';
import { recordChange } from '../../plugins/entities/history/record.ts';
import { createUsageLedger } from '../../plugins/entities/history/usage.ts';

describe.each(allDrivers())('workspace changes in the audit log on %s', (kind) => {
  const t = useTestHub(kind);
  const h = fixtures(t);

  const eventsOf = async (targetId: string) => {
    const res = await t.request('GET', `/admin/audit?targetId=${targetId}`);
    expect(res.status, res.text).toBe(200);
    return res.body.events as any[];
  };
  /** A store as a CLI command makes it: its transactions carry the command line's context. */
  const cliStore = () => t.hub.driver().forTenant(DEFAULT_TENANT_ID, CLI_CONTEXT);
  /** A change recorded by hand in `tx`, who made it read from the store's context. */
  const cliChange = (tx: Store, id: string) =>
    recordChange(
      tx,
      {
        events: t.hub.events,
        history: () => t.hub.config().history,
        usage: createUsageLedger((id) => t.hub.driver().forTenant(id)),
      },
      {
        kind: 'live-page',
        row: { id, name: 'Docs', version: 2 },
        action: 'restored',
        actorId: null,
        at: new Date().toISOString(),
      },
    );

  it('reads each event from its revision: action, actor, request id, target and version', async () => {
    const admin = await t.hub.identity.users.get(t.store(), t.adminId);
    const col = await h.collection();
    const req = await h.request(col.id, { name: 'Login' });
    const renamed = await t.request('PUT', `/requests/${req.id}`, {
      headers: { 'x-request-id': 'rename-login' },
      body: { collectionId: col.id, name: 'Sign in' },
    });
    expect(renamed.status, renamed.text).toBe(200);
    const [event] = await eventsOf(req.id);
    expect(event).toMatchObject({
      action: 'request.updated',
      actor: { id: t.adminId, name: admin!.name },
      target: { kind: 'request', id: req.id, name: 'Sign in' },
      tenantId: '__default__',
      requestId: 'rename-login',
      details: { version: 2 },
    });
    await cliStore().transaction((tx) => cliChange(tx, 'page-1'));
    const [restored] = await eventsOf('page-1');
    expect(restored).toMatchObject({
      action: 'live-page.restored',
      actor: null,
      target: { kind: 'live-page', id: 'page-1', name: 'Docs' },
      details: { version: 2, via: 'cli' },
    });
  });

  it('keeps no event of a change whose transaction failed', async () => {
    await expect(
      cliStore().transaction(async (tx) => {
        await cliChange(tx, 'page-2');
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect(await eventsOf('page-2')).toEqual([]);
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
