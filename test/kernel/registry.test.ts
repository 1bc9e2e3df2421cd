import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createPluginApp, definePlugin, type PluginDefinition } from '../../kernel/plugin.ts';
import { assertNoRouteClashes, orderPlugins } from '../../kernel/registry.ts';

const plugin = (name: string, extra: Partial<PluginDefinition<any>> = {}) =>
  definePlugin<any>({ name, setup: () => ({}), ...extra });
const names = (list: PluginDefinition<any>[]) => list.map((p) => p.name);

describe('plugin registry', () => {
  it('orders plugins after their dependencies whatever the list order', () => {
    const ordered = orderPlugins(
      [plugin('c', { dependencies: ['b'] }), plugin('b', { dependencies: ['a'] }), plugin('a')],
      [],
    );
    expect(names(ordered)).toEqual(['a', 'b', 'c']);
  });

  it('rejects a plugin registered twice', () => {
    expect(() => orderPlugins([plugin('a'), plugin('a')], [])).toThrow(
      'Plugin "a" is registered twice',
    );
  });

  it('rejects a missing dependency', () => {
    expect(() => orderPlugins([plugin('a', { dependencies: ['ghost'] })], [])).toThrow(
      'Plugin "a" depends on "ghost", which is not registered',
    );
  });

  it('rejects a dependency cycle and names it', () => {
    expect(() =>
      orderPlugins(
        [plugin('a', { dependencies: ['b'] }), plugin('b', { dependencies: ['a'] })],
        [],
      ),
    ).toThrow(/cycle: a -> b -> a/);
  });

  it('rejects a config section already owned by the kernel or another plugin', () => {
    const section = (name: string) => ({ section: name, schema: z.object({}) });
    expect(() => orderPlugins([plugin('a', { config: section('db') })], ['db'])).toThrow(
      /already owned by the kernel/,
    );
    expect(() =>
      orderPlugins(
        [plugin('a', { config: section('x') }), plugin('b', { config: section('x') })],
        [],
      ),
    ).toThrow(/already owned by plugin "a"/);
  });

  it('rejects migrations outside the plugin namespace', () => {
    expect(() => orderPlugins([plugin('a', { migrations: [{ id: 'b/0001' }] })], [])).toThrow(
      /must have an id starting with "a\/"/,
    );
  });

  it('rejects an invalid plugin name', () => {
    expect(() => orderPlugins([plugin('Bad Name')], [])).toThrow(/Invalid plugin name/);
  });

  it('rejects two plugins declaring the same route, but not shared middleware', () => {
    const a = createPluginApp().get('/things', (c) => c.text('a'));
    a.use('*', async (_c, next) => next());
    const b = createPluginApp().get('/things', (c) => c.text('b'));
    b.use('*', async (_c, next) => next());
    expect(() =>
      assertNoRouteClashes([
        { name: 'a', instance: { routes: a } },
        { name: 'b', instance: { routes: b } },
      ]),
    ).toThrow('Route GET /things is declared by both plugin "a" and plugin "b"');
    const c = createPluginApp().post('/things', (ctx) => ctx.text('c'));
    expect(() =>
      assertNoRouteClashes([
        { name: 'a', instance: { routes: a } },
        { name: 'c', instance: { publicRoutes: c } },
      ]),
    ).not.toThrow();
  });

  it('treats routes that differ only in parameter names as the same route', () => {
    const a = createPluginApp().get('/users/:id/things', (c) => c.text('a'));
    const b = createPluginApp().get('/users/:userId/things', (c) => c.text('b'));
    expect(() =>
      assertNoRouteClashes([
        { name: 'a', instance: { routes: a } },
        { name: 'b', instance: { routes: b } },
      ]),
    ).toThrow('Route GET /users/:/things is declared by both plugin "a" and plugin "b"');
  });
});
