/**
 * The settings and tenants pages over HTTP, on SQLite and PostgreSQL: a reload with the report of
 * every section, the effective configuration with its secrets as ***, the hub's avatar saved (and
 * a refused one beside its field); with multitenancy, a tenant created with its first
 * administrator, switched to (the old session signed out, the new one in that tenant) and
 * deleted, a refused id beside its field, another tenant's administrator told who manages
 * tenants; without it, no tenants page at all.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { consoleSessionsTable } from '../../plugins/console/tables.ts';
import { consoleDrivers } from '../helpers/drivers.ts';
import { uniqueName, useTestHub } from '../helpers/hub.ts';
import { consoleClient } from './client.ts';
import { signedIn, submit, submitRefused, textOf } from './forms.ts';

const METRICS_TOKEN = 'metrics-token-that-is-long-enough';
const CONFIG = {
  logging: { level: 'silent' },
  multitenancy: { enabled: true },
  metrics: { token: METRICS_TOKEN },
};

describe.each(consoleDrivers())('console settings and tenants on %s', (kind) => {
  let dir: string;
  let file: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hub-console-settings-'));
    file = join(dir, 'server.yaml');
    await writeFile(file, stringify(CONFIG));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const t = useTestHub(kind, () => ({ config: CONFIG, configPath: file }));
  const single = useTestHub(t);

  it('reloads with a report of every section and shows the configuration with secrets as ***', async () => {
    const browser = await signedIn(t);
    const page = await browser.get('/console/settings');
    expect(page.html).toContain('token: &quot;***&quot;');
    expect(page.html).not.toContain(METRICS_TOKEN);
    expect(textOf(page.html)).toContain('multitenancy: enabled: true');
    const reloaded = await submit(browser, '/console/settings', { intent: 'reload' });
    expect(reloaded.status).toBe(200);
    const rows = [...reloaded.html.matchAll(/<tr data-section="([^"]+)">[\s\S]*?<\/tr>/g)];
    expect(rows.map((row) => row[1])).toEqual(
      expect.arrayContaining(['db', 'redis', 'llm', 'server']),
    );
    for (const [row] of rows) expect(textOf(row)).toMatch(/unchanged|reloaded/);

    await writeFile(file, 'server: { port: eighty }');
    const refused = await submitRefused(browser, '/console/settings', { intent: 'reload' });
    expect(textOf(/<p[^>]*id="reload-error"[^>]*>[^<]*<\/p>/.exec(refused.html)![0])).toMatch(
      /server\.port: /,
    );
    await writeFile(file, stringify(CONFIG));
  });

  it("saves the hub's avatar, and puts a refused one beside its field", async () => {
    const browser = await signedIn(t);
    const saved = await submit(browser, '/console/settings', {
      intent: 'hub',
      initials: 'QA',
      color: 'teal-600',
    });
    expect(saved.location).toBe('/console/settings?done=hub');
    expect((await t.request('GET', '/auth/session')).body.hub).toMatchObject({
      initials: 'QA',
      color: 'teal-600',
    });
    const refused = await submitRefused(browser, '/console/settings', {
      intent: 'hub',
      initials: 'TOO-MANY',
      color: 'teal-600',
    });
    expect(refused.error('initials')).toMatch(/^initials: /);
    expect(refused.value('initials')).toBe('TOO-MANY');
  });

  it('creates a tenant with its first administrator and switches to it, ending this session', async () => {
    const browser = await signedIn(t);
    const id = uniqueName('ten').replace(/[^A-Za-z0-9_-]/g, '');
    const made = await submit(browser, '/console/tenants', {
      intent: 'create',
      id,
      name: 'Branch office',
      adminName: 'boss',
    });
    expect(made.status).toBe(200);
    const secret = /<code id="secret"[^>]*>(hbk_[^<]+)<\/code>/.exec(made.html)![1]!;
    expect(made.html).toContain(`<input type="hidden" name="tenant" value="${id}"/>`);
    const before = browser.cookie!;

    const switched = await browser.post('/console/sign-in', { tenant: id, token: secret });
    expect([switched.status, switched.location]).toEqual([303, '/console']);
    expect(browser.cookie!.startsWith(`${id}.`)).toBe(true);
    const home = await browser.get('/console');
    expect(textOf(home.html)).toContain('boss');
    // The previous session is gone from the default tenant, signed out on the record.
    const old = consoleClient(t);
    old.cookie = before;
    expect((await old.get('/console')).html).toContain('<h1>Sign in</h1>');
    const events = await t.request('GET', '/admin/audit?action=console.signed_out');
    expect(events.body.events.length).toBeGreaterThan(0);

    // Tenants are the default tenant's to manage: its administrator here is told so.
    const theirs = await browser.get('/console/tenants');
    expect(theirs.status).toBe(200);
    expect(textOf(theirs.html)).toContain(
      'Tenants are made and deleted by administrators of the default tenant.',
    );
    expect(theirs.html).not.toContain('Create tenant');
    // So is the hub's configuration: neither shown nor offered for reload here.
    const settings = await browser.get('/console/settings');
    expect(settings.status).toBe(200);
    expect(settings.html).not.toContain('Reload configuration');
    expect(settings.html).toContain('id="config-note"');
  });

  it('deletes a tenant after a confirmation, and its sessions with it', async () => {
    const id = uniqueName('gone').replace(/[^A-Za-z0-9_-]/g, '');
    const made = await t.request('POST', '/admin/tenants', {
      body: { id, name: 'Short-lived', adminName: 'brief' },
    });
    const theirs = consoleClient(t);
    await theirs.signIn(made.body.admin.secret, id);
    const browser = await signedIn(t);
    const list = await browser.get('/console/tenants');
    expect(list.html).toContain(`data-confirm="Delete the tenant ${id}`);
    const deleted = await submit(browser, '/console/tenants', { intent: 'delete', id });
    expect(deleted.location).toBe('/console/tenants?done=deleted');
    expect(await t.hub.identity.tenants.get(id)).toBeNull();
    expect(await t.driver.forTenant(id).table(consoleSessionsTable).count()).toBe(0);
  });

  it('puts a refused tenant beside its field and keeps what was typed', async () => {
    const browser = await signedIn(t);
    const page = await submitRefused(browser, '/console/tenants', {
      intent: 'create',
      id: 'not ok!',
      name: 'Kept name',
      adminName: 'kept',
    });
    expect(page.error('id')).toBe(
      'id: Tenant id may only contain letters, digits, underscores, and hyphens.',
    );
    expect([page.value('name'), page.value('adminName')]).toEqual(['Kept name', 'kept']);
  });

  it('has no tenants page and no link to it while multitenancy is off', async () => {
    const browser = await signedIn(single);
    const home = await browser.get('/console');
    expect(home.html).not.toContain('>Tenants</a>');
    const page = await browser.get('/console/tenants');
    expect(page.status).toBe(404);
    expect(textOf(page.html)).toContain('This page is not available on this hub.');
  });
});
