/** The public invitation surface: throttling of preview/redeem and the `/join` page as served. */
import { describe, expect, it } from 'vitest';
import { createMemoryThrottleStore } from '../../kernel/throttle/memory.ts';
import { httpDrivers } from '../helpers/drivers.ts';
import { uniqueName, useTestHub, withTestHub, type TestHub } from '../helpers/hub.ts';
import { closedPort } from '../helpers/net.ts';
import { DESKTOP_APP_URL } from '../../kernel/http/html.ts';

const UNKNOWN = `hbi_${'B'.repeat(43)}`;

describe.each(httpDrivers())('public invitation routes on %s', (kind) => {
  const t = useTestHub(kind, {
    throttle: createMemoryThrottleStore(),
    config: { redis: { maxFailures: 3, blockSeconds: 300 } },
    ip: '198.51.100.9',
  });
  const pub = (path: string, body: unknown, hub: TestHub = t) =>
    hub.request('POST', path, { token: null, body });

  it('blocks an address after repeated unknown secrets with 429 and Retry-After, not counting malformed ones', async () => {
    const created = await t.request('POST', '/admin/invited-users', {
      body: { name: uniqueName() },
    });
    for (let i = 0; i < 5; i++)
      expect((await pub('/auth/invitations/preview', { secret: 'hbi_bad' })).status).toBe(400);
    expect((await pub('/auth/invitations/preview', { secret: UNKNOWN })).status).toBe(404);
    expect((await pub('/auth/invitations/redeem', { secret: UNKNOWN })).status).toBe(404);
    // A success clears the count, so two failures later still do not block.
    expect((await pub('/auth/invitations/preview', { secret: created.body.secret })).status).toBe(
      200,
    );
    for (let i = 0; i < 3; i++)
      expect((await pub('/auth/invitations/preview', { secret: UNKNOWN })).status).toBe(404);
    const blocked = await pub('/auth/invitations/redeem', { secret: created.body.secret });
    expect(blocked.status).toBe(429);
    expect(blocked.body).toEqual({ error: 'Too Many Requests', code: 'rate_limited' });
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(250);
    // Bearer auth from the same address uses its own keys.
    expect((await t.request('GET', '/auth/session')).status).toBe(200);
  });

  it('fails closed with 503 when the configured Redis cannot be reached', async () => {
    await withTestHub(
      {
        driver: t.driver,
        config: {
          redis: { host: '127.0.0.1', port: await closedPort(), connectTimeoutMillis: 300 },
        },
      },
      async (down) => {
        const res = await pub('/auth/invitations/preview', { secret: UNKNOWN }, down);
        expect(res.status).toBe(503);
        expect(res.body).toEqual({ error: 'Service Unavailable', code: 'service_unavailable' });
      },
    );
  });

  describe('GET /join', () => {
    const query = (params: Record<string, string>) =>
      `/join?${new URLSearchParams(params).toString()}`;
    const valid = {
      url: 'https://hub.example.com',
      name: 'Ann <b>Lee</b>',
      role: 'user',
      exp: '2999-01-01T00:00:00.000Z',
      hub: 'Team "A" & co',
      access: 'Collections: all',
    };

    it('serves a self-contained page with strict headers and every value escaped', async () => {
      const res = await t.request('GET', query(valid), { token: null });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      const csp = res.headers.get('content-security-policy')!;
      expect(csp).toContain("default-src 'none'");
      const nonce = /script-src 'nonce-([^']+)'/.exec(csp)![1]!;
      expect(res.text).toContain(`<script nonce="${nonce}">`);
      expect(csp).toContain("connect-src 'self'");
      expect(res.text).not.toContain('<b>Lee');
      // Nothing loads from another host; the one outward link is the desktop app's releases page.
      expect(res.text).not.toMatch(/src="https?:/);
      expect([...res.text.matchAll(/href="(https?:[^"]*)"/g)].map((m) => m[1])).toEqual([
        DESKTOP_APP_URL,
      ]);
      const again = await t.request('GET', query(valid), { token: null });
      expect(again.headers.get('content-security-policy')).not.toBe(csp);
    });

    it('explains a malformed link with a friendly 200 page', async () => {
      for (const params of [
        {},
        { ...valid, role: 'owner' },
        { ...valid, exp: 'tomorrow' },
        { ...valid, url: 'javascript:alert(1)' },
        { ...valid, name: ' ' },
      ]) {
        const res = await t.request('GET', query(params as Record<string, string>), {
          token: null,
        });
        expect(res.status).toBe(200);
        expect(res.text).toContain('Invalid invite link');
      }
    });

    it("renders none of the query's claims: who, role, access and expiry come from the hub's preview", async () => {
      const crafted = { ...valid, url: 'https://evil.example', role: 'admin', hub: 'Fake Hub' };
      const res = await t.request('GET', query(crafted), { token: null });
      expect(res.status).toBe(200);
      // Only the escaped link target (checked against the page's origin by its script) and the
      // deep link's query appear; no claim is shown as text.
      expect(res.text).toContain('data-url="https://evil.example"');
      expect(res.text).toContain(
        `harborclient://team-hub/join?${new URLSearchParams(crafted).toString().replace(/&/g, '&amp;')}`,
      );
      const visible = res.text.replace(/<script[\s\S]*?<\/script>/, '').replace(/<[^>]*>/g, ' ');
      for (const claim of ['Ann', 'Fake Hub', 'Collections: all', '2999', 'admin<', 'evil.example'])
        expect(visible).not.toContain(claim);
      expect(res.text).toContain(`<h1 id="title">You're invited</h1>`);
      expect(res.text).toContain('Checking this invitation with the hub');
    });
  });
});

describe('the name of the hub on /join', () => {
  const t = useTestHub('sqlite', { config: { multitenancy: { enabled: true } } });
  const page = (tenant?: string) =>
    t.request(
      'GET',
      `/join?${new URLSearchParams({
        url: 'https://hub.example.com',
        name: 'Ann',
        role: 'user',
        exp: '2999-01-01T00:00:00.000Z',
        ...(tenant ? { tenant } : {}),
      }).toString()}`,
      { token: null },
    );

  it("is shown only from a valid code's preview: the page itself names no tenant, nor whether it exists", async () => {
    await t.hub.identity.tenants.create('acme', 'Acme Private Name');
    const acme = await page('acme');
    const nope = await page('nope');
    const home = await page();
    for (const res of [acme, nope, home]) {
      expect(res.status).toBe(200);
      expect(res.text).toContain(`<h1 id="title">You're invited</h1>`);
      expect(res.text).not.toContain('Acme Private Name');
      expect(res.text).not.toContain('Workspace Hub');
      expect(res.text).not.toContain('Invalid invite link');
    }
    const admin = await t.createUser({ role: 'admin' }, 'acme');
    const invited = await t.request('POST', '/admin/invited-users', {
      token: admin.token,
      tenant: 'acme',
      body: { name: uniqueName('Ann') },
    });
    const preview = (tenant: string) =>
      t.request('POST', '/auth/invitations/preview', {
        token: null,
        tenant,
        body: { secret: invited.body.secret },
      });
    expect((await preview('acme')).body.hubName).toBe('Acme Private Name');
    // Another tenant does not know the code, and an unknown tenant answers as an unknown code.
    expect((await preview('__default__')).status).toBe(404);
    expect((await preview('nope')).status).toBe(404);
  });
});
