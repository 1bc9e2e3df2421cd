/**
 * A member and the administrator's pages, over HTTP on SQLite and PostgreSQL: every admin route
 * family answers the 403 page on GET and, where it has forms, on a POST that carries the session's
 * own form token, and changes nothing; the navigation links none of them.
 */
import { describe, expect, it } from 'vitest';
import { consoleDrivers } from '../helpers/drivers.ts';
import { useTestHub } from '../helpers/hub.ts';
import { csrfOf } from './client.ts';
import { signedIn, textOf } from './forms.ts';

const FORBIDDEN = 'This page is for administrators of the hub.';

describe.each(consoleDrivers())('a member and the admin pages on %s', (kind) => {
  const t = useTestHub(kind, { config: { multitenancy: { enabled: true } } });

  it('gets the 403 page on GET and POST of every admin page, and nothing changes', async () => {
    const victim = await t.createUser({});
    const collection = (await t.request('POST', '/collections', { body: { name: 'Safe' } })).body;
    const member = await t.createUser({ role: 'user', collectionAccess: ['*'] });
    const browser = await signedIn(t, member.token);
    const home = await browser.get('/console');
    const csrf = csrfOf(home.html)!;
    for (const label of [
      'Users',
      'Tokens',
      'Invitations',
      'Workspace',
      'Audit',
      'Settings',
      'Tenants',
    ])
      expect(home.html, label).not.toContain(`>${label}</a>`);

    // Each admin page with its forms (the audit pages take none: their filters are GET queries).
    const pages: [string, Record<string, string> | null][] = [
      ['/console/users', { intent: 'create', name: 'sneaky', role: 'admin' }],
      [`/console/users/${victim.id}`, { intent: 'delete' }],
      ['/console/tokens', { intent: 'create', user: member.id, name: 'extra' }],
      ['/console/invitations', { intent: 'create', name: 'sneaky2', role: 'admin' }],
      ['/console/workspace', { intent: 'delete', id: collection.id }],
      ['/console/audit', null],
      ['/console/audit/export', null],
      ['/console/settings', { intent: 'reload' }],
      ['/console/tenants', { intent: 'create', id: 'sneaky', name: 'Sneaky' }],
    ];
    for (const [path, fields] of pages) {
      const got = await browser.get(path);
      expect(got.status, `GET ${path}`).toBe(403);
      expect(textOf(got.html), `GET ${path}`).toContain(FORBIDDEN);
      if (!fields) continue;
      const sent = await browser.post(path, { csrf, ...fields });
      expect(sent.status, `POST ${path}`).toBe(403);
      expect(textOf(sent.html), `POST ${path}`).toContain(FORBIDDEN);
    }
    const users = (await t.request('GET', '/admin/users')).body.users.map(
      (u: { name: string }) => u.name,
    );
    expect(users).not.toContain('sneaky');
    expect(users).not.toContain('sneaky2');
    expect((await t.request('GET', `/admin/collections`)).body.collections).toContainEqual(
      expect.objectContaining({ id: collection.id }),
    );
    expect(await t.hub.identity.tenants.get('sneaky')).toBeNull();
    expect((await t.request('GET', `/admin/tokens?userId=${member.id}`)).body.tokens).toHaveLength(
      1,
    );
  });
});
