/**
 * `GET /`: the hub's front page, public HTML under the same CSP stance as `/join` and `/docs`, with
 * the version, a link to the API reference and the address to paste into the desktop app.
 */
import { describe, expect, it } from 'vitest';
import { HUB_VERSION } from '../../kernel/version.ts';
import { httpDrivers } from '../helpers/drivers.ts';
import { useTestHub } from '../helpers/hub.ts';

describe('GET / (front page)', () => {
  const t = useTestHub(httpDrivers()[0]!, {
    config: { server: { publicUrl: 'https://hub.example.com/team' } },
  });

  it('serves HTML without a token: name, version, the docs link and the public address', async () => {
    const res = await t.request('GET', '/', { token: null });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.text).toContain('<h1>workspace-hub</h1>');
    expect(res.text).toContain(`Version ${HUB_VERSION}`);
    expect(res.text).toContain('href="/docs"');
    expect(res.text).toContain('https://hub.example.com/team');
    expect(res.text).not.toContain('/login');
    // Without an sso section there is no login page either.
    const login = await t.request('GET', '/login', { token: null });
    expect(login.status).toBe(404);
    expect(login.text).toContain('This hub has no single sign-on.');
  });

  it('sends the page headers: nothing from other origins, style only under its nonce, never cached or framed', async () => {
    const res = await t.request('GET', '/', { token: null });
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    const nonce = /style-src 'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(res.text).toContain(`<style nonce="${nonce}">`);
    expect(res.text).not.toContain('<script');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
  });
});

describe('GET / without server.publicUrl', () => {
  const t = useTestHub(httpDrivers()[0]!, { config: { server: { host: '0.0.0.0', port: 9123 } } });

  it('shows the configured host and port, a wildcard bind as 127.0.0.1, and not the Host header', async () => {
    const res = await t.request('GET', '/', {
      token: null,
      headers: { host: 'evil.example' },
    });
    expect(res.status).toBe(200);
    expect(res.text).toContain('http://127.0.0.1:9123');
    expect(res.text).not.toContain('evil.example');
  });
});
