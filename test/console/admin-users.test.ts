/**
 * The users pages over HTTP (no browser), on SQLite and PostgreSQL: the list with access by name,
 * a stale id as a warning, the sign-on link and usage, search and paging; "Create user" with
 * access picked by name (the token shown once); a user's page, its edit, unlink and delete; and
 * every refused form showing the API's message beside its field with what was typed kept.
 */
import { describe, expect, it } from 'vitest';
import { collectionsTable } from '../../plugins/entities/tables.ts';
import { consoleDrivers } from '../helpers/drivers.ts';
import { uniqueName, useTestHub } from '../helpers/hub.ts';
import { picked, signedIn, submit, submitRefused, textOf, ticked, valueOf } from './forms.ts';

describe.each(consoleDrivers())('console users pages on %s', (kind) => {
  const t = useTestHub(kind);
  const collection = async (name: string) =>
    (await t.request('POST', '/collections', { body: { name } })).body.id as string;

  it('lists users with access by name, a stale id as a warning, the sign-on link and usage', async () => {
    const [alpha, beta] = [await collection('Alpha'), await collection('Beta')];
    const name = uniqueName('listed');
    const made = await t.request('POST', '/admin/users', {
      body: { name, role: 'user', collectionAccess: [alpha, beta], environmentAccess: ['*'] },
    });
    const id = made.body.user.id;
    // Beta goes behind the API's back, as a row deleted by hand would: its id names nothing now.
    await t.store().table(collectionsTable).delete(beta);
    const link = await t.request('POST', '/admin/sso/links', {
      body: { userId: id, issuer: 'https://idp.example.com', subject: 'sub-1' },
    });
    expect(link.status).toBe(201);
    const browser = await signedIn(t);
    const page = await browser.get(`/console/users?q=${name}`);
    expect(page.status).toBe(200);
    const row = textOf(/<tr data-user="[^"]+">[\s\S]*?<\/tr>/.exec(page.html)![0]);
    expect(row).toContain(name);
    expect(row).toContain('Collections: Alpha');
    expect(row).toContain(`⚠ unknown collection id “${beta}”`);
    expect(row).toContain('Environments: all (*)');
    expect(row).toContain('linked: idp.example.com (sub-1)');
    expect(row).toMatch(/0 \(no cap\) · LLM off/);
    expect(row).toMatch(/0 of 1000 · 0 B of 256\.0 MiB/);
    expect(textOf(page.html)).toContain('1 of');
  });

  it('finds users by name and role, fifty a page', async () => {
    const prefix = uniqueName('paged');
    for (let i = 0; i < 53; i++) await t.createUser({ name: `${prefix}-${i}` });
    const browser = await signedIn(t);
    const first = await browser.get(`/console/users?q=${prefix}&only=user`);
    expect(first.html.match(/<tr data-user=/g)).toHaveLength(50);
    expect(textOf(first.html)).toContain('53 of');
    expect(textOf(first.html)).toContain('Page 1 of 2');
    const second = await browser.get(`/console/users?q=${prefix}&only=user&page=2`);
    expect(second.html.match(/<tr data-user=/g)).toHaveLength(3);
    const admins = await browser.get(`/console/users?q=${prefix}&only=admin`);
    expect(admins.html).not.toContain('<tr data-user=');
  });

  it('creates a user with access picked by name and shows their token this once', async () => {
    const alpha = await collection('Picked');
    const browser = await signedIn(t);
    const form = await browser.get('/console/users');
    expect(form.html).toContain(`name="collectionAccess:${alpha}"`);
    const name = uniqueName('made');
    const made = await submit(browser, '/console/users', {
      intent: 'create',
      name,
      role: 'user',
      ...picked('collectionAccess', alpha),
      environmentAccess: '*',
      llmMonthlyTokenLimit: '5000',
    });
    expect(made.status).toBe(200);
    const secret = /<code id="secret"[^>]*>(hbk_[^<]+)<\/code>/.exec(made.html)![1]!;
    expect(made.html).toContain('data-copy="Copy their token"');
    const user = (await t.request('GET', '/admin/users')).body.users.find(
      (candidate: { name: string }) => candidate.name === name,
    );
    expect(user).toMatchObject({
      collectionAccess: [alpha],
      environmentAccess: ['*'],
      snippetAccess: [],
      llmMonthlyTokenLimit: 5000,
    });
    expect((await t.request('GET', '/auth/session', { token: secret })).body.user.name).toBe(name);
    const again = await browser.get(`/console/users/${user.id}`);
    expect(again.html).not.toContain(secret);
  });

  it('keeps what was typed and shows the API message beside the field it names', async () => {
    const alpha = await collection('Kept');
    const browser = await signedIn(t);
    const typed = {
      intent: 'create',
      name: '   ',
      role: 'user',
      ...picked('collectionAccess', alpha),
      llmMonthlyTokenLimit: '12',
    };
    const empty = await submitRefused(browser, '/console/users', typed);
    expect(empty.error('name')).toBe('name: User name must not be empty.');
    expect(ticked(empty.html, `collectionAccess:${alpha}`)).toBe(true);
    expect(empty.value('llmMonthlyTokenLimit')).toBe('12');

    const cap = await submitRefused(browser, '/console/users', {
      ...typed,
      name: 'capped',
      llmMonthlyTokenLimit: 'lots',
    });
    expect(cap.error('llmMonthlyTokenLimit')).toMatch(/^llmMonthlyTokenLimit: /);
    expect(cap.value('name')).toBe('capped');
    expect(cap.value('llmMonthlyTokenLimit')).toBe('lots');

    // An id that names nothing: the message goes to its list's picker.
    const stale = await submitRefused(browser, '/console/users', {
      ...typed,
      name: 'stale',
      'collectionAccess:no-such-id': 'on',
    });
    expect(stale.error('collectionAccess')).toBe('Unknown collection id: no-such-id.');
    expect(stale.html).toMatch(
      /<fieldset class="picker invalid" id="f-collectionAccess" aria-describedby="f-collectionAccess-error">/,
    );
    expect(textOf(stale.html)).toContain('⚠ Unknown collection id “no-such-id”');
  });

  it("shows a user's page, saves an edit, unlinks and deletes after a confirmation", async () => {
    const alpha = await collection('Edited');
    const user = await t.createUser({ name: uniqueName('edit') });
    await t.request('POST', '/admin/sso/links', {
      body: { userId: user.id, issuer: 'https://idp.example.com', subject: `s-${user.id}` },
    });
    const browser = await signedIn(t);
    const path = `/console/users/${user.id}`;
    const page = await browser.get(path);
    expect(page.status).toBe(200);
    expect(textOf(page.html)).toContain('1 active of 1');
    expect(page.html).toContain('data-confirm="Delete');

    const saved = await submit(browser, path, {
      intent: 'update',
      name: `${user.id.slice(0, 4)}-renamed`,
      role: 'user',
      ...picked('collectionAccess', alpha),
      snippetAccess: '*',
    });
    expect([saved.status, saved.location]).toEqual([303, `${path}?done=saved`]);
    const after = (await t.request('GET', '/admin/users')).body.users.find(
      (candidate: { id: string }) => candidate.id === user.id,
    );
    expect(after).toMatchObject({ collectionAccess: [alpha], snippetAccess: ['*'] });
    expect(textOf((await browser.get(`${path}?done=saved`)).html)).toContain('Saved.');

    const refused = await submitRefused(browser, path, {
      intent: 'update',
      name: 'system',
      role: 'user',
    });
    expect(refused.error('name')).toBe(
      'name: User name "system" is reserved for the internal system account.',
    );
    expect(refused.value('name')).toBe('system');

    // The API's 403 for one's own role comes back above the form, with the form as typed.
    const own = await submit(browser, `/console/users/${t.adminId}`, {
      intent: 'update',
      name: 'still-me',
      role: 'user',
    });
    expect(own.status).toBe(403);
    expect(textOf(own.html)).toContain('You cannot change your own role.');
    expect(valueOf(own.html, 'name')).toBe('still-me');

    const unlinked = await submit(browser, path, { intent: 'unlink' });
    expect(unlinked.location).toBe(`${path}?done=unlinked`);
    expect((await t.request('GET', '/admin/sso/links')).body.links).not.toContainEqual(
      expect.objectContaining({ userId: user.id }),
    );

    const deleted = await submit(browser, path, { intent: 'delete' });
    expect([deleted.status, deleted.location]).toEqual([303, '/console/users?done=deleted']);
    expect((await t.request('DELETE', `/admin/users/${user.id}`)).status).toBe(404);
    const gone = await browser.get(path);
    expect([gone.status, textOf(gone.html)]).toEqual([
      404,
      expect.stringContaining('User not found'),
    ]);
  });
});
