/**
 * Purging a record's history, for a secret that leaked into it: `DELETE /admin/<kind>/:id/revisions`
 * (admins only) and `workspace-hub history purge <kind> <id>` as a real process. Every revision
 * goes, the audit log keeps the changes' events and records the purge, a deleted record leaves the
 * trash with what its deletion removed, and the live record stays as it is.
 */
import { describe, expect, it } from 'vitest';
import { createDriver } from '../../kernel/storage/create-driver.ts';
import { quietLogging, useCliProject } from '../helpers/cli.ts';
import { serverOrEmbedded } from '../helpers/databases.ts';
import { allDrivers } from '../helpers/drivers.ts';
import { EVERY_ENTITY, fixtures } from '../helpers/fixtures.ts';
import { useTestHub, withTestHub, type TestHub } from '../helpers/hub.ts';

const bearer = (token: string) => ({
  type: 'bearer',
  basic: { username: '', password: '' },
  bearer: { token },
});

/** A saved request whose first version held a secret, scrubbed since. */
async function leakedRequest(t: TestHub) {
  const h = fixtures(t);
  const col = await h.collection();
  const req = await h.request(col.id, { auth: bearer('PROD-SECRET') });
  const scrubbed = await t.request('PUT', `/requests/${req.id}`, {
    body: { collectionId: col.id, auth: bearer('') },
  });
  expect(scrubbed.status, scrubbed.text).toBe(200);
  return { col, req };
}

const historyText = async (t: TestHub, path: string) => {
  const list = await t.request('GET', `${path}/revisions`);
  expect(list.status, list.text).toBe(200);
  const reads = await Promise.all(
    list.body.revisions.map((r: any) => t.request('GET', `${path}/revisions/${r.id}`)),
  );
  return { count: list.body.revisions.length, text: reads.map((r) => r.text).join('\n') };
};

describe.each(allDrivers())('purging history over HTTP on %s', (driver) => {
  const t = useTestHub(driver);
  const h = fixtures(t);

  it("removes a live request's every revision, keeps it and its audit events, for admins only", async () => {
    const { req } = await leakedRequest(t);
    expect((await historyText(t, `/requests/${req.id}`)).text).toContain('PROD-SECRET');
    const member = await h.user(EVERY_ENTITY);
    const path = `/admin/requests/${req.id}/revisions`;
    expect((await t.request('DELETE', path, { token: member.token })).status).toBe(403);
    const purged = await t.request('DELETE', path);
    expect(purged.status, purged.text).toBe(200);
    expect(purged.body).toEqual({ purged: 2 });
    expect(await historyText(t, `/requests/${req.id}`)).toEqual({ count: 0, text: '' });
    const live = await t.request('GET', `/requests/${req.id}`);
    expect(live.headers.get('etag')).toBe('"2"');
    expect(live.body.auth).toEqual(bearer(''));
    const events = (await t.request('GET', `/admin/audit?targetId=${req.id}`)).body.events;
    expect(events.map((e: any) => e.action)).toEqual([
      'history.purged',
      'revision.read',
      'revision.read',
      'request.updated',
      'request.created',
    ]);
    expect(events[0]).toMatchObject({
      actor: { id: t.adminId },
      target: { kind: 'request', id: req.id, name: req.name },
      details: { revisions: 2 },
    });
    expect(JSON.stringify(events)).not.toContain('PROD-SECRET');
    // Its next change starts its history again.
    await t.request('PUT', `/requests/${req.id}`, {
      body: { collectionId: req.collectionId, url: 'https://after.test' },
    });
    expect((await historyText(t, `/requests/${req.id}`)).count).toBe(1);
    expect((await t.request('DELETE', '/admin/requests/nope/revisions')).status).toBe(404);
  });

  it('takes a deleted folder out of the trash for good, with what its deletion removed', async () => {
    const col = await h.collection();
    const folder = await h.folder(col.id);
    const req = await h.request(col.id, { folderId: folder.id, auth: bearer('PROD-SECRET') });
    expect((await t.request('DELETE', `/folders/${folder.id}`)).status).toBe(204);
    const purged = await t.request('DELETE', `/admin/folders/${folder.id}/revisions`);
    expect(purged.status, purged.text).toBe(200);
    expect(purged.body.purged).toBe(4);
    expect((await t.request('GET', `/collections/${col.id}/trash`)).body.items).toEqual([]);
    for (const path of [`/folders/${folder.id}`, `/requests/${req.id}`])
      expect((await t.request('GET', `${path}/revisions`)).status).toBe(404);
  });
});

const DRIVER = serverOrEmbedded();

describe(`workspace-hub history purge (process, ${DRIVER})`, () => {
  const project = useCliProject(DRIVER, quietLogging, { migrate: true });

  it('purges a record named by kind and id, audited as the command line', async () => {
    const driver = await createDriver(project.database.config);
    try {
      const { req } = await withTestHub({ driver }, leakedRequest);
      const done = await project.run('history', 'purge', 'request', req.id);
      expect(done.code, done.stderr).toBe(0);
      expect(done.stdout).toBe(`Purged 2 revision(s) of request ${req.id}.\n`);
      const json = await project.json('history', 'purge', 'request', req.id);
      expect(json).toEqual({ kind: 'request', id: req.id, purged: 0 });
      await withTestHub({ driver }, async (t) => {
        expect(await historyText(t, `/requests/${req.id}`)).toEqual({ count: 0, text: '' });
        const events = (await t.request('GET', `/admin/audit?action=history.purged`)).body.events;
        expect(events[events.length - 1]).toMatchObject({
          actor: null,
          target: { kind: 'request', id: req.id },
          details: { revisions: 2, via: 'cli' },
        });
      });
      const unknown = await project.run('history', 'purge', 'document', req.id);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain(`No document with id ${req.id}`);
      const wrongKind = await project.run('history', 'purge', 'widget', req.id);
      expect(wrongKind.code).toBe(2);
      expect(wrongKind.stderr).toContain('<kind> must be one of request, document');
    } finally {
      await driver.close();
    }
  });
});
