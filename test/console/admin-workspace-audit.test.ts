/**
 * The workspace and audit pages over HTTP, on SQLite and PostgreSQL: a collection locked (the data
 * API then refuses its deletion), unlocked and deleted, one kind at a time; the audit log filtered
 * by action, by an actor's name and by time, paged through with the API's cursor, a refused
 * filter beside its field, and the selection downloaded as JSON lines equal to what the API
 * answers for it.
 */
import { describe, expect, it } from 'vitest';
import { consoleDrivers } from '../helpers/drivers.ts';
import { uniqueName, useTestHub } from '../helpers/hub.ts';
import { errorOf, signedIn, submit, textOf, valueOf } from './forms.ts';

describe.each(consoleDrivers())('console workspace and audit on %s', (kind) => {
  const t = useTestHub(kind);

  it('locks a collection against deletion, unlocks it and deletes it', async () => {
    const id = (await t.request('POST', '/collections', { body: { name: 'Guarded' } })).body.id;
    const browser = await signedIn(t);
    const page = await browser.get('/console/workspace');
    expect(textOf(page.html)).toContain('Guarded');
    const locked = await submit(browser, '/console/workspace?kind=collections', {
      intent: 'lock',
      id,
    });
    expect(locked.location).toBe('/console/workspace?kind=collections&done=locked');
    const listed = await t.request('GET', '/admin/collections');
    expect(listed.body.collections.find((c: { id: string }) => c.id === id).deletionLocked).toBe(
      true,
    );
    expect((await t.request('DELETE', `/collections/${id}`)).status).toBe(403);
    const row = (await browser.get('/console/workspace?kind=collections&done=locked')).html;
    expect(textOf(new RegExp(`<tr data-entity="${id}">[\\s\\S]*?</tr>`).exec(row)![0])).toContain(
      'locked Unlock',
    );

    await submit(browser, '/console/workspace?kind=collections', { intent: 'unlock', id });
    expect(
      (await t.request('GET', '/admin/collections')).body.collections.find(
        (c: { id: string }) => c.id === id,
      ).deletionLocked,
    ).toBe(false);
    expect(row).toMatch(new RegExp(`data-confirm="Delete “Guarded”`));
    const deleted = await submit(browser, '/console/workspace?kind=collections', {
      intent: 'delete',
      id,
    });
    expect(deleted.location).toBe('/console/workspace?kind=collections&done=deleted');
    expect((await t.request('GET', `/admin/collections`)).body.collections).not.toContainEqual(
      expect.objectContaining({ id }),
    );
  });

  it('shows one kind at a time and locks an environment through its own route', async () => {
    const id = (await t.request('POST', '/environments', { body: { name: 'Prod' } })).body.id;
    const browser = await signedIn(t);
    const page = await browser.get('/console/workspace?kind=environments');
    expect(page.html).toMatch(/<h2 id="entities-title">Environments<\/h2>/);
    expect(page.html).toContain(`<tr data-entity="${id}">`);
    await submit(browser, '/console/workspace?kind=environments', { intent: 'lock', id });
    expect(
      (await t.request('GET', '/admin/environments')).body.environments.find(
        (e: { id: string }) => e.id === id,
      ).deletionLocked,
    ).toBe(true);
  });

  it('filters the audit log by action, by actor name and by time, and pages with the cursor', async () => {
    const actorName = uniqueName('actor');
    const actor = await t.createUser({ name: actorName, role: 'admin' });
    for (let i = 0; i < 55; i++)
      await t.request('POST', '/collections', { token: actor.token, body: { name: `c${i}` } });
    const browser = await signedIn(t);
    const byAction = await browser.get('/console/audit?action=collection.created');
    const actions = [...byAction.html.matchAll(/<td><code>([^<]+)<\/code><\/td>/g)].map(
      (m) => m[1],
    );
    expect(actions.length).toBe(50);
    expect(new Set(actions)).toEqual(new Set(['collection.created']));
    expect(valueOf(byAction.html, 'action')).toBe('collection.created');

    const mine = await browser.get(`/console/audit?actor=${actorName}`);
    const rows = [...mine.html.matchAll(/<tr data-event="[^"]+">[\s\S]*?<\/tr>/g)];
    expect(rows).toHaveLength(50);
    for (const [row] of rows) expect(textOf(row)).toContain(actorName);
    const older = /<a href="(\/console\/audit\?[^"]*cursor=[^"]+)">Older events<\/a>/.exec(
      mine.html,
    );
    const next = await browser.get(older![1]!.replaceAll('&amp;', '&'));
    expect([...next.html.matchAll(/<tr data-event=/g)]).toHaveLength(5);
    expect(next.html).not.toContain('Older events');

    const future = await browser.get('/console/audit?since=2999-01-01');
    expect(textOf(future.html)).toContain('No event matches.');
  });

  it('puts a refused filter beside its field and keeps every filter typed', async () => {
    const browser = await signedIn(t);
    const page = await browser.get('/console/audit?since=yesterday&action=user.created');
    expect(page.status).toBe(400);
    expect(errorOf(page.html, 'since')).toBe(
      'since: must be an ISO 8601 date-time, e.g. 2026-01-02T03:04:05Z',
    );
    expect(valueOf(page.html, 'since')).toBe('yesterday');
    expect(valueOf(page.html, 'action')).toBe('user.created');
    const download = await browser.get('/console/audit/export?until=soon');
    expect(download.status).toBe(400);
    expect(errorOf(download.html, 'until')).toMatch(/^until: /);
  });

  it('downloads the selection as JSON lines, every page of it, as the API answers it', async () => {
    const actor = await t.createUser({ name: uniqueName('bulk'), role: 'admin' });
    for (let i = 0; i < 120; i++)
      await t.request('POST', '/environments', { token: actor.token, body: { name: `e${i}` } });
    const browser = await signedIn(t);
    const page = await browser.get(`/console/audit?actor=${actor.id}`);
    expect(page.html).toContain(`href="/console/audit/export?actor=${actor.id}" download`);
    const file = await browser.get(`/console/audit/export?actor=${actor.id}`);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
    expect(file.headers.get('content-disposition')).toMatch(
      /^attachment; filename="audit-__default__-\d{4}-\d{2}-\d{2}\.jsonl"$/,
    );
    const lines = file.text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toHaveLength(120);
    const api = [];
    let cursor = '';
    do {
      const answer = await t.request('GET', `/admin/audit?actorId=${actor.id}&limit=100${cursor}`);
      api.push(...answer.body.events);
      cursor = answer.body.nextCursor ? `&cursor=${answer.body.nextCursor}` : '';
    } while (cursor);
    expect(lines).toEqual(api);
  });
});
