import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT_ID } from '../../kernel/identity/tenants.ts';
import { usersTable } from '../../kernel/identity/tables.ts';
import { httpDrivers } from '../helpers/drivers.ts';
import { accountsPlugin } from '../../plugins/accounts/index.ts';
import { avatarsPlugin } from '../../plugins/avatars/index.ts';
import { useTestHub } from '../helpers/hub.ts';

describe.each(httpDrivers())('tenants on %s', (kind) => {
  const single = useTestHub(kind, { plugins: [avatarsPlugin, accountsPlugin] });
  const multi = useTestHub(single, {
    plugins: [avatarsPlugin, accountsPlugin],
    config: { multitenancy: { enabled: true } },
  });
  beforeAll(async () => {
    await multi.hub.identity.tenants.create('acme', 'Acme Corp');
  });

  it('uses the default tenant when no header is sent', async () => {
    expect((await single.request('GET', '/auth/session')).body.tenantId).toBe(DEFAULT_TENANT_ID);
  });

  it('accepts __default__ explicitly even with multitenancy off', async () => {
    const res = await single.request('GET', '/auth/session', { tenant: DEFAULT_TENANT_ID });
    expect(res.status).toBe(200);
  });

  it('refuses other tenants while multitenancy is disabled', async () => {
    const res = await single.request('GET', '/auth/session', { tenant: 'acme' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Multitenancy is disabled; only the default tenant is available.');
  });

  it.each([
    ['bad id!', 'Tenant id may only contain letters, digits, underscores, and hyphens.'],
    ['x'.repeat(65), 'Tenant id must be at most 64 characters.'],
  ])('rejects the malformed tenant id %s', async (tenant, message) => {
    const res = await multi.request('GET', '/health', { token: null, tenant });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(message);
  });

  it('answers 404 for a tenant that does not exist', async () => {
    const res = await multi.request('GET', '/auth/session', { tenant: 'ghost' });
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('Tenant not found');
  });

  it('reads the desktop client header X-Harbor-Tenant as an alias', async () => {
    const user = await multi.createUser({}, 'acme');
    const res = await multi.request('GET', '/auth/session', {
      token: user.token,
      headers: { 'x-harbor-tenant': 'acme' },
    });
    expect(res.status).toBe(200);
    expect(res.body.tenantId).toBe('acme');
    expect(res.body.hub.name).toBe('Acme Corp');
  });

  it('keeps tokens and users inside their tenant', async () => {
    const inAcme = await multi.createUser({}, 'acme');
    expect((await multi.request('GET', '/auth/session', { token: inAcme.token })).status).toBe(401);
    expect(
      (await multi.request('GET', '/auth/session', { token: multi.adminToken, tenant: 'acme' }))
        .status,
    ).toBe(401);
    const list = await multi.request('GET', '/admin/users');
    expect(list.body.users.map((u: { id: string }) => u.id)).not.toContain(inAcme.id);
    expect((await multi.request('DELETE', `/admin/users/${inAcme.id}`)).status).toBe(404);
  });

  it('gives every tenant its own system account and deletes all of a tenant in one go', async () => {
    await multi.hub.identity.tenants.create('doomed', 'Doomed');
    const user = await multi.createUser({}, 'doomed');
    const system = await single.driver
      .forTenant('doomed')
      .table(usersTable)
      .findOne({ system: true });
    expect(system).not.toBeNull();
    await multi.hub.identity.tenants.delete('doomed');
    multi.hub.tenants.invalidate('doomed');
    expect(await single.driver.forTenant('doomed').table(usersTable).count()).toBe(0);
    expect(
      (await multi.request('GET', '/auth/session', { token: user.token, tenant: 'doomed' })).status,
    ).toBe(404);
  });

  it('refuses to create or delete the reserved default tenant', async () => {
    await expect(multi.hub.identity.tenants.create(DEFAULT_TENANT_ID, 'x')).rejects.toThrow(
      /reserved/,
    );
    await expect(multi.hub.identity.tenants.delete(DEFAULT_TENANT_ID)).rejects.toThrow(
      /cannot be deleted/,
    );
  });
});
