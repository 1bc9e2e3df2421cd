/** `GET /plugins/sources` and the `plugins` section of server.yaml. */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../kernel/config/errors.ts';
import { validateConfig } from '../../kernel/config/load.ts';
import { pluginSourcesSchema } from '../../plugins/plugin-sources/index.ts';
import { EMBEDDED_DRIVER } from '../helpers/drivers.ts';
import { useTestDriver, withTestHub, type TestHub } from '../helpers/hub.ts';

const sections = { plugins: pluginSourcesSchema };

describe('plugin sources', () => {
  const db = useTestDriver(EMBEDDED_DRIVER);
  const withHub = (config: Record<string, unknown>, test: (t: TestHub) => Promise<void>) =>
    withTestHub({ driver: db.driver, config }, test);

  it('lists empty arrays when the plugins section is absent', () =>
    withHub({}, async (t) => {
      const res = await t.request('GET', '/plugins/sources');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ catalogs: [], trusted: [] });
    }));

  it('lists the configured URLs without duplicates, to users as well as admins', () =>
    withHub(
      {
        plugins: {
          catalogs: [
            'https://a.example/catalog.json',
            'https://a.example/catalog.json',
            'http://b.example/c',
          ],
          trusted: ['https://pub.example'],
        },
      },
      async (t) => {
        const user = await t.createUser({});
        const res = await t.request('GET', '/plugins/sources', { token: user.token });
        expect(res.body).toEqual({
          catalogs: ['https://a.example/catalog.json', 'http://b.example/c'],
          trusted: ['https://pub.example'],
        });
        expect((await t.request('GET', '/plugins/sources', { token: null })).status).toBe(401);
      },
    ));

  it.each([
    [{ catalogs: ['not a url'] }, 'server.yaml: plugins.catalogs.0: must be an http(s) URL'],
    [{ trusted: ['ftp://x.example'] }, 'server.yaml: plugins.trusted.0: must be an http(s) URL'],
    [
      { catalogs: 'https://a.example' },
      'server.yaml: plugins.catalogs: expected a list, got "https://a.example"',
    ],
    [{ extra: [] }, 'server.yaml: plugins.extra: unknown key'],
  ])('refuses %j naming the key', (plugins, message) => {
    expect(() => validateConfig({ plugins }, sections, {})).toThrow(ConfigError);
    expect(() => validateConfig({ plugins }, sections, {})).toThrow(message);
  });
});
