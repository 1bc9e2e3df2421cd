/**
 * `/admin/tenants` over HTTP, on every HTTP driver: listing, creating (with a first administrator
 * whose token works in the new tenant at once, or without one), deleting (the tenant's tokens stop
 * working), the 400s and 409 naming their field with nothing written, and who may use the routes
 * — administrators of the default tenant only, and nobody while multitenancy is off (404).
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_TENANT_ID } from '../../kernel/identity/tenants.ts';
import { OPERATOR_ONLY } from '../../kernel/http/operator.ts';
import { MULTITENANCY_OFF } from '../../plugins/accounts/admin-tenants.ts';
import { httpDrivers } from '../helpers/drivers.ts';
import { uniqueName, useTestHub } from '../helpers/hub.ts';

const tenantId = () => uniqueName('t').replace(/[^A-Za-z0-9_-]/g, '');

describe.each(httpDrivers())('tenant routes on %s', (kind) => {
  const single = useTestHub(kind);
  const multi = useTestHub(single, { config: { multitenancy: { enabled: true } } });

  it('answers 404 saying multitenancy is off, on every route, while it is', async () => {
    for (const [method, path] of [
      ['GET', '/admin/tenants'],
      ['POST', '/admin/tenants'],
      ['DELETE', '/admin/tenants/acme'],
    ] as const) {
      const res = await single.request(method, path, method === 'POST' ? { body: {} } : {});
      expect([res.status, res.body.error]).toEqual([404, MULTITENANCY_OFF]);
    }
  });

  it('creates a tenant with its first administrator, whose token works there at once, audited as the caller', async () => {
    const id = tenantId();
    const res = await multi.request('POST', '/admin/tenants', {
      headers: { 'x-request-id': `make-${id}` },
      body: { id, name: 'Acme Corp', adminName: 'ada' },
    });
    expect(res.status).toBe(201);
    expect(res.body.tenant).toMatchObject({ id, name: 'Acme Corp' });
    expect(res.body.admin.user).toMatchObject({ name: 'ada', role: 'admin' });
    expect(res.body.admin.secret).toMatch(/^hbk_/);
    const session = await multi.request('GET', '/auth/session', {
      token: res.body.admin.secret,
      tenant: id,
    });
    expect(session.status).toBe(200);
    expect(session.body).toMatchObject({ tenantId: id, hub: { name: 'Acme Corp' } });
    const listed = await multi.request('GET', '/admin/tenants');
    expect(listed.body.tenants.map((t: { id: string }) => t.id)).toEqual(
      expect.arrayContaining([DEFAULT_TENANT_ID, id]),
    );
    // Audited in the operator's log, as the work of the administrator who asked.
    const audit = await multi.request('GET', `/admin/audit?action=tenant.created&targetId=${id}`);
    expect(audit.body.events).toHaveLength(1);
    expect(audit.body.events[0]).toMatchObject({
      actor: { id: multi.adminId },
      requestId: `make-${id}`,
    });
  });

  it('creates a tenant without an administrator when adminName is left out or blank', async () => {
    const id = tenantId();
    const res = await multi.request('POST', '/admin/tenants', {
      body: { id, name: 'Quiet', adminName: '  ' },
    });
    expect(res.status).toBe(201);
    expect(res.body.admin).toBeUndefined();
  });

  it.each([
    [
      { id: 'bad id!', name: 'X' },
      'id: Tenant id may only contain letters, digits, underscores, and hyphens.',
    ],
    [
      { id: DEFAULT_TENANT_ID, name: 'X' },
      'id: The tenant "__default__" is reserved and always exists.',
    ],
    [{ id: 'fine', name: '  ' }, 'name: Tenant name must not be empty.'],
    [
      { id: 'fine', name: 'Bad\u202ename' },
      'name: Tenant name must not contain control or bidirectional-override characters.',
    ],
    [
      { id: 'fine', name: 'X', adminName: 'system' },
      'adminName: User name "system" is reserved for the internal system account.',
    ],
  ])('refuses %j with 400 naming the field, and makes nothing', async (body, message) => {
    const res = await multi.request('POST', '/admin/tenants', { body });
    expect([res.status, res.body.error]).toEqual([400, message]);
    expect(await multi.hub.identity.tenants.get('fine')).toBeNull();
  });

  it('refuses a taken id with 409', async () => {
    const id = tenantId();
    expect(
      (await multi.request('POST', '/admin/tenants', { body: { id, name: 'A' } })).status,
    ).toBe(201);
    const again = await multi.request('POST', '/admin/tenants', { body: { id, name: 'B' } });
    expect([again.status, again.body.error]).toEqual([
      409,
      `id: A tenant with id "${id}" already exists.`,
    ]);
  });

  it('deletes a tenant: its tokens stop working; the default tenant stays', async () => {
    const id = tenantId();
    const made = await multi.request('POST', '/admin/tenants', {
      body: { id, name: 'Doomed', adminName: 'dee' },
    });
    expect((await multi.request('DELETE', `/admin/tenants/${id}`)).status).toBe(204);
    multi.hub.tenants.invalidate(id);
    const after = await multi.request('GET', '/auth/session', {
      token: made.body.admin.secret,
      tenant: id,
    });
    expect(after.status).toBe(404);
    expect((await multi.request('DELETE', `/admin/tenants/${id}`)).status).toBe(404);
    const keep = await multi.request('DELETE', `/admin/tenants/${DEFAULT_TENANT_ID}`);
    expect([keep.status, keep.body.error]).toEqual([
      400,
      'The tenant "__default__" cannot be deleted.',
    ]);
  });

  it("refuses another tenant's administrators (403) and members (403)", async () => {
    const id = tenantId();
    const made = await multi.request('POST', '/admin/tenants', {
      body: { id, name: 'Other', adminName: 'oz' },
    });
    const theirs = { token: made.body.admin.secret, tenant: id };
    for (const [method, path] of [
      ['GET', '/admin/tenants'],
      ['POST', '/admin/tenants'],
      ['DELETE', `/admin/tenants/${id}`],
    ] as const) {
      const res = await multi.request(method, path, {
        ...theirs,
        ...(method === 'POST' ? { body: { id: 'x', name: 'x' } } : {}),
      });
      expect([res.status, res.body.error]).toEqual([403, OPERATOR_ONLY]);
    }
    const member = await multi.createUser({ role: 'user' });
    expect((await multi.request('GET', '/admin/tenants', { token: member.token })).status).toBe(
      403,
    );
    expect(await multi.hub.identity.tenants.get(id)).not.toBeNull();
  });
});
