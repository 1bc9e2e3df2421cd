/**
 * Boot checks on the plugin list, run after every plugin is known so list order does not matter:
 * manifest shape, duplicate names, missing dependencies, dependency cycles, config sections that
 * collide, migration ids outside the plugin's namespace, and (after setup) clashing routes; and the
 * setup itself, each plugin with its own view of the hub's context.
 */
import type { Hono } from 'hono';
import { TrieRouter } from 'hono/router/trie-router';
import type { Logger } from './log.ts';
import type { HubMetrics } from './metrics.ts';
import type { KernelEnv, PluginContext, PluginDefinition, PluginInstance } from './plugin.ts';

const PLUGIN_NAME = /^[a-z][a-z0-9-]{0,63}$/;

export class PluginRegistryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PluginRegistryError';
  }
}

/** Validates the list and returns it in dependency order (dependencies first). */
export function orderPlugins(
  plugins: readonly PluginDefinition<any>[],
  reservedSections: readonly string[],
): PluginDefinition<any>[] {
  const byName = new Map<string, PluginDefinition<any>>();
  const sections = new Map<string, string>(reservedSections.map((s) => [s, 'the kernel']));
  for (const plugin of plugins) {
    if (!plugin || typeof plugin !== 'object' || typeof plugin.setup !== 'function') {
      throw new PluginRegistryError(
        'Every plugin must be made with definePlugin and have a setup function',
      );
    }
    if (!PLUGIN_NAME.test(plugin.name))
      throw new PluginRegistryError(
        `Invalid plugin name "${plugin.name}": use lower-case letters, digits and hyphens`,
      );
    if (byName.has(plugin.name))
      throw new PluginRegistryError(`Plugin "${plugin.name}" is registered twice`);
    byName.set(plugin.name, plugin);
    if (plugin.config) {
      const owner = sections.get(plugin.config.section);
      if (owner)
        throw new PluginRegistryError(
          `Config section "${plugin.config.section}" of plugin "${plugin.name}" is already owned by ${owner}`,
        );
      sections.set(plugin.config.section, `plugin "${plugin.name}"`);
    }
    for (const migration of plugin.migrations ?? []) {
      if (!migration.id.startsWith(`${plugin.name}/`)) {
        throw new PluginRegistryError(
          `Migration "${migration.id}" of plugin "${plugin.name}" must have an id starting with "${plugin.name}/"`,
        );
      }
    }
  }
  for (const plugin of plugins) {
    for (const dependency of plugin.dependencies ?? []) {
      if (!byName.has(dependency))
        throw new PluginRegistryError(
          `Plugin "${plugin.name}" depends on "${dependency}", which is not registered`,
        );
    }
  }
  const ordered: PluginDefinition<any>[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (plugin: PluginDefinition<any>, path: string[]) => {
    const seen = state.get(plugin.name);
    if (seen === 'done') return;
    if (seen === 'visiting')
      throw new PluginRegistryError(
        `Plugin dependency cycle: ${[...path, plugin.name].join(' -> ')}`,
      );
    state.set(plugin.name, 'visiting');
    for (const dependency of plugin.dependencies ?? [])
      visit(byName.get(dependency)!, [...path, plugin.name]);
    state.set(plugin.name, 'done');
    ordered.push(plugin);
  };
  for (const plugin of plugins) visit(plugin, []);
  return ordered;
}

function endpoints(app: Hono<KernelEnv> | undefined): string[] {
  // Middleware is registered with method ALL; only real endpoints can clash.
  // Parameter names do not matter to the router: `/x/:id` and `/x/:userId` are the same route.
  return (app?.routes ?? [])
    .filter((route) => route.method !== 'ALL')
    .map((route) => `${route.method} ${route.path.replace(/:[^/{]+(\{[^}]*\})?/g, ':$1')}`);
}

/** Throws when two plugins (or one plugin twice) declare the same method and path. */
export function assertNoRouteClashes(
  instances: readonly { name: string; instance: PluginInstance<any> }[],
): void {
  const owners = new Map<string, string>();
  for (const { name, instance } of instances) {
    // A route with per-route middleware appears once per handler; count each method+path once.
    for (const route of new Set([
      ...endpoints(instance.publicRoutes),
      ...endpoints(instance.routes),
    ])) {
      const owner = owners.get(route);
      if (owner)
        throw new PluginRegistryError(
          `Route ${route} is declared by both plugin "${owner}" and plugin "${name}"`,
        );
      owners.set(route, name);
    }
  }
}

/** The order methods are listed in an `Allow` header. */
const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * For a path, the methods some endpoint declares on it (HEAD wherever GET is, as the router
 * answers HEAD with the GET handler), for the `Allow` header of a 405. Empty for an unknown path.
 * Built from the endpoints once, on first use, when every route is mounted.
 */
export function allowedMethods(
  routes: () => readonly { method: string; path: string }[],
): (path: string) => string[] {
  let router: TrieRouter<string> | null = null;
  return (path) => {
    if (!router) {
      router = new TrieRouter<string>();
      for (const route of routes())
        if (route.method !== 'ALL') router.add('ALL', route.path, route.method.toUpperCase());
    }
    const methods = new Set(router.match('GET', path)[0].map(([method]) => method));
    if (methods.has('GET')) methods.add('HEAD');
    const rank = (method: string) =>
      METHOD_ORDER.includes(method) ? METHOD_ORDER.indexOf(method) : METHOD_ORDER.length;
    return [...methods].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  };
}

export type SetUpPlugin = { name: string; instance: PluginInstance<any> };

/**
 * Sets the plugins up in their order, each with the shared context plus its own section, logger
 * and metrics; then refuses routes two plugins both mount.
 */
export async function setUpPlugins(
  plugins: readonly PluginDefinition<any>[],
  shared: Omit<PluginContext<any>, 'config' | 'log' | 'metrics'>,
  log: Logger,
  metrics: HubMetrics,
): Promise<SetUpPlugin[]> {
  const instances: SetUpPlugin[] = [];
  for (const plugin of plugins) {
    const section = plugin.config?.section;
    const ctx: PluginContext<any> = {
      ...shared,
      config: () => (section ? shared.hubConfig()[section] : undefined),
      log: log.child({ plugin: plugin.name }),
      metrics: metrics.forPlugin(plugin.name),
    };
    instances.push({ name: plugin.name, instance: await plugin.setup(ctx) });
  }
  assertNoRouteClashes(instances);
  return instances;
}
