/**
 * The console's two files and its switch: the style sheet and script are served under names that
 * carry their content's hash, kept a year, together under 50 KB; an unknown name is 404; and with
 * `console.enabled: false` every console path is the hub's plain 404.
 */
import { describe, expect, it } from 'vitest';
import { SCRIPT, STYLE } from '../../plugins/console/assets.ts';
import { useTestHub } from '../helpers/hub.ts';
import { consoleClient } from './client.ts';

describe('the console assets', () => {
  const t = useTestHub('sqlite');

  it('serves the style sheet and script the pages name, hashed, kept a year, under 50 KB together', async () => {
    const page = await consoleClient(t).get('/console');
    for (const asset of [STYLE, SCRIPT]) {
      expect(asset.name).toMatch(/^console\.[0-9a-f]{12}\.(css|js)$/);
      expect(page.html).toContain(`/console/assets/${asset.name}`);
      const served = await t.request('GET', `/console/assets/${asset.name}`, { token: null });
      expect(served.status).toBe(200);
      expect(served.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(served.headers.get('content-type')).toBe(asset.type);
      expect(served.text).toBe(asset.body);
    }
    const bytes = new TextEncoder().encode(STYLE.body + SCRIPT.body).byteLength;
    expect(bytes).toBeLessThan(50 * 1024);
    expect(
      (await t.request('GET', '/console/assets/console.000000000000.css', { token: null })).status,
    ).toBe(404);
  });
});

describe('the console switched off', () => {
  const t = useTestHub('sqlite', { config: { console: { enabled: false } } });

  it('answers 404 on every console path', async () => {
    expect((await t.request('GET', '/console', { token: null })).status).toBe(404);
    const post = await consoleClient(t).signIn(t.adminToken);
    expect(post.status).toBe(404);
    expect(post.headers.get('content-type')).toMatch(/^application\/json/);
  });
});
