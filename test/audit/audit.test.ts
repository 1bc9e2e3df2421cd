/** The audit log over HTTP: an event per instrumented action, filters and pages, who may read it. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { createManualClock } from '../../kernel/clock.ts';
import { ssoAuditEvent } from '../../plugins/sso/index.ts';
import { allDrivers } from '../helpers/drivers.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { uniqueName, useTestHub } from '../helpers/hub.ts';

interface AuditEvent {
  id: string;
  at: string;
  action: string;
  actor: { id: string; name: string } | null;
  target: { kind: string; id: string; name: string };
  tenantId: string | null;
  ip: string | null;
  requestId: string | null;
  details: Record<string, unknown>;
}

const BASE = { logging: { level: 'silent' }, multitenancy: { enabled: true } };
const DAY = 24 * 60 * 60 * 1000;

describe.each(allDrivers())('audit log on %s', (kind) => {
  const clock = createManualClock(new Date('2026-02-01T00:00:00.000Z'));
  let dir: string;
  let file: string;
  const write = (config: Record<string, unknown>) =>
    writeFile(file, stringify({ ...BASE, ...config }));
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hub-audit-'));
    file = join(dir, 'server.yaml');
    await write({});
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const t = useTestHub(kind, () => ({ clock, config: BASE, configPath: file }));
  const fx = fixtures(t);
  /** Every secret a test handed out; no event may contain any of them. */
  const secrets: string[] = [];

  const events = async (query = '', token?: string): Promise<AuditEvent[]> => {
    const res = await t.request('GET', `/admin/audit${query}`, token ? { token } : {});
    expect(res.status, res.text).toBe(200);
    return res.body.events;
  };
  const only = async (action: string, targetId: string) => {
    const found = await events(`?action=${action}&targetId=${encodeURIComponent(targetId)}`);
    expect(found, `${action} of ${targetId}`).toHaveLength(1);
    return found[0]!;
  };
  const adminName = async () => (await t.hub.identity.users.get(t.store(), t.adminId)).name;

  it('records a user created, updated and deleted over HTTP with actor, address, request id and the access lists before and after', async () => {
    const collection = await fx.collection();
    const created = await t.request('POST', '/admin/users', {
      body: { name: uniqueName('audited'), role: 'user' },
    });
    expect(created.status, created.text).toBe(201);
    secrets.push(created.body.secret);
    const userId = created.body.user.id as string;

    const event = await only('user.created', userId);
    expect(event).toEqual({
      id: expect.any(String),
      at: expect.any(String),
      action: 'user.created',
      actor: { id: t.adminId, name: await adminName() },
      target: { kind: 'user', id: userId, name: created.body.user.name },
      tenantId: '__default__',
      ip: '203.0.113.1',
      requestId: created.headers.get('x-request-id'),
      details: expect.objectContaining({ after: expect.objectContaining({ role: 'user' }) }),
    });
    const token = await only('token.created', created.body.token.id);
    expect(token.details).toEqual({ userId, userName: created.body.user.name });

    const updated = await t.request('PUT', `/admin/users/${userId}`, {
      body: { collectionAccess: [collection.id] },
    });
    expect(updated.status, updated.text).toBe(200);
    expect((await only('user.updated', userId)).details).toEqual({
      before: { collectionAccess: [] },
      after: { collectionAccess: [collection.id] },
    });

    expect((await t.request('DELETE', `/admin/users/${userId}`)).status).toBe(204);
    expect((await only('user.deleted', userId)).details).toEqual({ role: 'user' });
  });

  it('keeps a client-chosen request id of the longest length the hub accepts', async () => {
    const requestId = 'r'.repeat(255);
    const created = await t.request('POST', '/admin/users', {
      body: { name: uniqueName('named-request'), role: 'user' },
      headers: { 'x-request-id': requestId },
    });
    expect(created.status, created.text).toBe(201);
    secrets.push(created.body.secret);
    expect((await only('user.created', created.body.user.id)).requestId).toBe(requestId);
  });

  it('records tokens created, revoked and deleted', async () => {
    const user = await t.createUser({});
    const issued = await t.request('POST', `/admin/users/${user.id}/tokens`, {
      body: { name: 'laptop' },
    });
    expect(issued.status, issued.text).toBe(201);
    secrets.push(issued.body.secret, user.token);
    const tokenId = issued.body.token.id as string;
    expect((await only('token.created', tokenId)).target).toEqual({
      kind: 'token',
      id: tokenId,
      name: 'laptop',
    });

    await t.hub.identity.tokens.revoke(t.store(), tokenId);
    expect((await only('token.revoked', tokenId)).details).toEqual({ userId: user.id });
    expect((await t.request('DELETE', `/admin/tokens/${tokenId}`)).status).toBe(204);
    expect((await only('token.deleted', tokenId)).details).toEqual({ userId: user.id });
  });

  it('records invitations created, redeemed (by the invitee) and revoked, without their codes', async () => {
    const invite = async () => {
      const res = await t.request('POST', '/admin/invited-users', {
        body: { name: uniqueName('invitee') },
      });
      expect(res.status, res.text).toBe(201);
      secrets.push(res.body.secret);
      return res.body as {
        user: { id: string; name: string };
        invitation: { id: string };
        secret: string;
      };
    };
    const first = await invite();
    const created = await only('invitation.created', first.invitation.id);
    expect(created.target).toEqual({
      kind: 'invitation',
      id: first.invitation.id,
      name: first.user.name,
    });
    const redeemed = await t.request('POST', '/auth/invitations/redeem', {
      token: null,
      body: { secret: first.secret },
    });
    expect(redeemed.status, redeemed.text).toBe(201);
    secrets.push(redeemed.body.secret);
    const redeemEvent = await only('invitation.redeemed', first.invitation.id);
    expect(redeemEvent.actor).toEqual({ id: first.user.id, name: first.user.name });
    expect(redeemEvent.ip).toBe('203.0.113.1');

    const second = await invite();
    expect((await t.request('DELETE', `/admin/invitations/${second.invitation.id}`)).status).toBe(
      204,
    );
    await only('invitation.revoked', second.invitation.id);
  });

  it('records an admin turning a deletion lock on, with the flag before and after', async () => {
    const collection = await fx.collection();
    const res = await t.request('PUT', `/admin/collections/${collection.id}`, {
      body: { deletionLocked: true },
    });
    expect(res.status, res.text).toBe(200);
    const event = await only('lock.changed', collection.id);
    expect(event.target).toEqual({ kind: 'collection', id: collection.id, name: collection.name });
    expect(event.details).toEqual({
      before: { deletionLocked: false },
      after: { deletionLocked: true },
    });
    // Setting the same value again changes nothing and records nothing.
    await t.request('PUT', `/admin/collections/${collection.id}`, {
      body: { deletionLocked: true },
    });
    await only('lock.changed', collection.id);
  });

  it('records a config reload with each section status', async () => {
    const res = await t.request('POST', '/admin/config/reload');
    expect(res.status, res.text).toBe(200);
    const [event] = await events('?action=config.reloaded&limit=1');
    expect(event?.actor?.id).toBe(t.adminId);
    expect(event?.details['ok']).toBe(true);
    expect(event?.details['sections']).toEqual(
      expect.arrayContaining([{ section: 'db', status: 'unchanged' }]),
    );
  });

  it('records a reload the file refused as config.reload_failed, with the reason', async () => {
    await write({ server: { port: 'eighty' } });
    const res = await t.request('POST', '/admin/config/reload');
    expect(res.status, res.text).toBe(400);
    const [event] = await events('?action=config.reload_failed&limit=1');
    expect(event?.actor?.id).toBe(t.adminId);
    expect(event?.details).toEqual({
      ok: false,
      reason: `${file}: server.port: expected an integer, got "eighty"`,
    });
    await write({});
  });

  it('records a reload refused for its YAML with the parser message and line, never a line of the file', async () => {
    // A secret on the line before the error, where the excerpt of the log shows its neighbours.
    await writeFile(file, 'llm: { providers: [{ name: a, apiKey: sk-live-SECRET123 }] }\nx: : y\n');
    const res = await t.request('POST', '/admin/config/reload');
    expect(res.status, res.text).toBe(400);
    const reason = `${file}: invalid YAML: Nested mappings are not allowed in compact mappings at line 2, column 4`;
    expect(res.body.fatalError).toBe(reason);
    const [event] = await events('?action=config.reload_failed&limit=1');
    expect(event?.details).toEqual({ ok: false, reason });
    await write({});
  });

  it('records a section that failed to apply as config.reload_failed, with each status and the reason, never the password', async () => {
    const password = 'pw-of-the-unreachable-db';
    await write({
      db: {
        driver: 'postgres',
        host: '127.0.0.1',
        port: 1,
        user: 'hub',
        password,
        database: 'hub',
        connectionTimeoutMillis: 1000,
      },
    });
    const before = (await events('?action=config.reloaded')).length;
    const res = await t.request('POST', '/admin/config/reload');
    expect(res.status, res.text).toBe(200);
    const [event] = await events('?action=config.reload_failed&limit=1');
    expect(event?.details['ok']).toBe(false);
    const sections = event?.details['sections'] as { section: string; reason?: string }[];
    expect(sections.find((entry) => entry.section === 'db')).toEqual({
      section: 'db',
      status: 'failed',
      reason: expect.stringMatching(/ECONNREFUSED|connect/),
    });
    expect(sections).toEqual(expect.arrayContaining([{ section: 'redis', status: 'unchanged' }]));
    expect(JSON.stringify(event)).not.toContain(password);
    expect(await events('?action=config.reloaded')).toHaveLength(before);
    await write({});
  });

  it('filters by actor, action, target and time, and pages newest first without repeats', async () => {
    const actor = await t.createUser({}, undefined);
    clock.advance(1000);
    const before = clock.iso();
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      clock.advance(1000);
      const user = await t.createUser({});
      ids.push(user.id);
      const res = await t.request('PUT', `/admin/users/${user.id}`, { body: { llmAccess: true } });
      expect(res.status).toBe(200);
    }
    const all = await events(`?action=user.updated&since=${before}&limit=100`);
    expect(all.map((e) => e.target.id)).toEqual([...ids].reverse());
    const times = all.map((e) => e.at);
    expect([...times].sort().reverse()).toEqual(times);

    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const res = await t.request(
        'GET',
        `/admin/audit?action=user.updated&since=${before}&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(res.status, res.text).toBe(200);
      expect(res.body.events.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.events.map((e: AuditEvent) => e.target.id));
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());

    const until = all[2]!.at;
    const older = await events(`?action=user.updated&since=${before}&until=${until}`);
    expect(older.every((e) => e.at <= until)).toBe(true);
    expect(older.map((e) => e.target.id)).toContain(all[2]!.target.id);
    expect(older.map((e) => e.target.id)).not.toContain(all[0]!.target.id);

    const byActor = await events(`?actorId=${t.adminId}&targetId=${ids[0]}`);
    expect(byActor.map((e) => e.action)).toEqual(['user.updated']);
    expect(await events(`?actorId=${actor.id}`)).toEqual([]);
  });

  it('refuses bad filters with a 400 naming the field', async () => {
    for (const [query, field] of [
      ['since=yesterday', 'since'],
      ['until=2026-13-40T00:00:00Z', 'until'],
      ['cursor=%%%', 'cursor'],
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['action=', 'action'],
    ] as const) {
      const res = await t.request('GET', `/admin/audit?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error, query).toContain(field);
    }
  });

  it('answers 403 to a user-role token', async () => {
    const user = await t.createUser({});
    const res = await t.request('GET', '/admin/audit', { token: user.token });
    expect(res.status).toBe(403);
  });

  it('keeps every secret handed out in these tests out of every event', async () => {
    const all: AuditEvent[] = [];
    let cursor: string | undefined;
    do {
      const res = await t.request(
        'GET',
        `/admin/audit?limit=100${cursor ? `&cursor=${cursor}` : ''}`,
      );
      all.push(...res.body.events);
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(all.length).toBeGreaterThan(10);
    expect(secrets.length).toBeGreaterThan(4);
    const text = JSON.stringify(all);
    for (const secret of [...secrets, t.adminToken]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(secret.slice(4, 20));
    }
    expect(text).not.toMatch(/hb[ik]_/);
  });

  it('records single sign-on outcomes built with ssoAuditEvent', async () => {
    const user = await t.createUser({});
    const subject = { id: user.id, name: 'sso-user', provider: 'okta' };
    await t.hub.audit.record(t.store(), ssoAuditEvent('sso.signed_in', subject));
    await t.hub.audit.record(
      t.store(),
      ssoAuditEvent('sso.refused', subject, { reason: 'email not verified' }),
    );
    const signedIn = await only('sso.signed_in', user.id);
    expect(signedIn.actor).toEqual({ id: user.id, name: 'sso-user' });
    expect(signedIn.details).toEqual({ provider: 'okta' });
    const refused = await only('sso.refused', user.id);
    expect(refused.actor).toBeNull();
    expect(refused.details).toEqual({ provider: 'okta', reason: 'email not verified' });
  });

  it('shows each tenant only its own events', async () => {
    const tenantId = uniqueName('tenant').replace(/[^a-z0-9-]/g, '');
    await t.hub.identity.tenants.create(tenantId, 'Other team');
    const admin = await t.createUser({ role: 'admin' }, tenantId);
    const member = await t.createUser({}, tenantId);
    const theirs = await t.request('GET', '/admin/audit?limit=100', {
      token: admin.token,
      tenant: tenantId,
    });
    expect(theirs.status, theirs.text).toBe(200);
    const targets = theirs.body.events.map((e: AuditEvent) => e.target.id);
    expect(targets).toEqual(expect.arrayContaining([admin.id, member.id]));
    expect(theirs.body.events.every((e: AuditEvent) => e.tenantId === tenantId)).toBe(true);
    expect(targets).not.toContain(t.adminId);

    const ours = await events('?limit=100');
    expect(ours.map((e) => e.target.id)).not.toContain(member.id);
    // Tenants are the operator's business: their creation is in the default tenant's log.
    expect((await only('tenant.created', tenantId)).target).toEqual({
      kind: 'tenant',
      id: tenantId,
      name: 'Other team',
    });
    // Another tenant's admin token does not read the default tenant's log.
    const crossed = await t.request('GET', '/admin/audit', { token: admin.token });
    expect(crossed.status).toBe(401);
  });

  it('prunes events older than history.auditKeepDays when the section is reloaded', async () => {
    const old = await t.createUser({});
    clock.advance(200 * DAY);
    const recent = await t.createUser({});
    await write({ history: { auditKeepDays: 100 } });
    const res = await t.request('POST', '/admin/config/reload');
    expect(res.status, res.text).toBe(200);
    expect(await events(`?targetId=${old.id}`)).toEqual([]);
    expect((await events(`?targetId=${recent.id}`)).map((e) => e.action)).toEqual(['user.created']);
    expect((await events('?action=config.reloaded&limit=1'))[0]?.details['sections']).toEqual(
      expect.arrayContaining([{ section: 'history', status: 'reloaded' }]),
    );
  });
});
