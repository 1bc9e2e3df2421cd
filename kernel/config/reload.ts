/**
 * Config reload (`POST /admin/config/reload`, SIGHUP): re-read and fully validate server.yaml, and
 * only then apply it section by section. A file that is missing or invalid changes nothing. `db` and
 * `redis` get a new, verified connection that replaces the old one (which keeps serving when the new
 * one fails); plugin sections go to their plugin's reload handler; `server` host and port need a
 * restart. Only the section names the desktop client knows are reported.
 */
import { readFile } from 'node:fs/promises';
import { isDeepStrictEqual } from 'node:util';
import type { EventBus } from '../events.ts';
import type { Logger } from '../log.ts';
import type { PluginDefinition, PluginInstance, ReloadStatus } from '../plugin.ts';
import type { RedisConfig } from '../redis/config.ts';
import type { DbConfig } from '../storage/config.ts';
import { ConfigError } from './errors.ts';
import type { Env } from './interpolate.ts';
import { carryEnvironmentPaths, parseConfig, type HubConfig, type SectionSchemas } from './load.ts';

/** Reported sections, in report order (the desktop client's enum, minus `docs`, which we lack). */
export const RELOAD_SECTIONS = [
  'db',
  'redis',
  'llm',
  'plugins',
  'collaboration',
  'server',
] as const;

/** Kernel sections read at every use, so committing a new value applies it. */
const LIVE_SECTIONS = ['logging', 'metrics', 'history'] as const;

/** Kernel sections a reload cannot apply; they keep their start-up value until a restart. */
const RESTART_ONLY_SECTIONS = ['multitenancy'] as const;

export const RESTART_REQUIRED_MESSAGE =
  'Changes to server.host, server.port or server.bodyLimitBytes require a full process restart.';

/**
 * Published on the kernel event bus after a reload was applied, for plugins that depend on a kernel
 * section (notices rebuild their Redis fan-out when `redis` changed).
 */
export const CONFIG_RELOADED = 'kernel.config.reloaded';
export interface ConfigReloadedEvent {
  /** Sections whose new value is now live. */
  changed: string[];
  config: HubConfig;
  previous: HubConfig;
}

export interface SectionResult {
  section: string;
  status: ReloadStatus;
  error?: string;
}

/**
 * `sections` are the ones the desktop client knows (the HTTP answer); `others` are the remaining
 * sections (`logging`, `multitenancy`, plugin sections such as `invites`), for the log line and
 * `workspace-hub reload`. A refused file's `fatalError` shows none of its lines (it reaches the
 * HTTP answer and the audit log); `detail`, when there is more to say, adds them for the file's
 * own readers (the log, `workspace-hub reload`).
 */
export type ReloadOutcome =
  | { ok: true; sections: SectionResult[]; others: SectionResult[] }
  | { ok: false; fatalError: string; detail?: string };

/** What the reloader needs from the hub; the hub owns the connections it swaps. */
export interface ReloadHost {
  configPath: string | null;
  /** Without `configPath`: the file to read once it exists (see CreateHubOptions). */
  defaultConfigPath?: string | null;
  env: Env;
  pluginSections: SectionSchemas;
  current(): HubConfig;
  commit(config: HubConfig): void;
  plugins: readonly {
    section: string;
    reloadable: boolean;
    reload?: ((next: any, previous: any) => Promise<ReloadStatus | void>) | undefined;
  }[];
  /** Builds and verifies a connection for the new section and swaps it in; throws (changing nothing) on failure. */
  swapDriver(next: DbConfig): Promise<void>;
  swapThrottle(next: RedisConfig | undefined): Promise<void>;
  events: EventBus;
  log: Logger;
}

/** The reload side of the plugins: their sections' schemas and reload handlers. */
export function pluginReloadTargets(
  plugins: readonly PluginDefinition<any>[],
  instances: readonly { name: string; instance: PluginInstance<any> }[],
): Pick<ReloadHost, 'pluginSections' | 'plugins'> {
  const withSection = plugins.flatMap((p) =>
    p.config ? [{ name: p.name, config: p.config }] : [],
  );
  return {
    pluginSections: Object.fromEntries(withSection.map((p) => [p.config.section, p.config.schema])),
    plugins: withSection.map(({ name, config }) => {
      const instance = instances.find((entry) => entry.name === name)?.instance;
      const reload =
        instance?.reload &&
        ((next: unknown, previous: unknown) => instance.reload!(next, previous));
      return { section: config.section, reloadable: config.reloadable ?? true, reload };
    }),
  };
}

async function readNext(host: ReloadHost): Promise<HubConfig> {
  const path = host.configPath ?? host.defaultConfigPath ?? null;
  if (path === null) {
    throw new Error(
      'This hub started without a configuration file (built-in defaults), so there is no file to reload. Restart it with a server.yaml or --config <file>.',
    );
  }
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // The message says all a reader needs; a cause would be appended to the reload's answer.
    // oxlint-disable-next-line preserve-caught-error
    throw new Error(
      code !== 'ENOENT'
        ? `Cannot read config file ${path}: ${(error as Error).message}`
        : host.configPath === null
          ? `This hub started without a configuration file (built-in defaults) and there is none at ${path} yet. Create it (server.yaml.example documents every key) and reload again.`
          : `Config file not found: ${path}`,
    );
  }
  return parseConfig(text, host.pluginSections, host.env, path);
}

/**
 * Why something failed, never empty: connection errors of Node's network stack are often an
 * AggregateError without a message (one attempt per address), so the inner errors say it.
 */
export function reason(error: unknown): string {
  if (!(error instanceof Error)) return String(error) || 'unknown error';
  // "The database cannot be reached" says what, its cause says why (ECONNREFUSED, bad password…).
  if (error.message && error.cause !== undefined) return `${error.message}: ${reason(error.cause)}`;
  if (error.message) return error.message;
  if (error instanceof AggregateError && error.errors.length > 0)
    return [...new Set(error.errors.map(reason))].join('; ');
  const code = (error as NodeJS.ErrnoException).code;
  return code ? `${error.name} ${code}` : error.name || 'unknown error';
}

/** Applies the file; never throws (every failure is an outcome). */
async function reloadOnce(host: ReloadHost): Promise<ReloadOutcome> {
  let next: HubConfig;
  try {
    next = await readNext(host);
  } catch (error) {
    const full = reason(error);
    const brief = error instanceof ConfigError ? error.brief : full;
    return { ok: false, fatalError: brief, ...(brief !== full ? { detail: full } : {}) };
  }
  const previous = host.current();
  const applied: Record<string, unknown> = { ...next };
  const results = new Map<string, SectionResult>();
  const keep = (section: string, status: ReloadStatus, error?: string) => {
    applied[section] = previous[section];
    results.set(section, { section, status, ...(error ? { error } : {}) });
  };
  const same = (section: string) => isDeepStrictEqual(previous[section], next[section]);

  for (const [section, swap] of [
    ['db', () => host.swapDriver(next.db)],
    ['redis', () => host.swapThrottle(next.redis)],
  ] as const) {
    if (same(section)) results.set(section, { section, status: 'unchanged' });
    else
      await swap().then(
        () => results.set(section, { section, status: 'reloaded' }),
        (error) => keep(section, 'failed', reason(error)),
      );
  }
  for (const plugin of host.plugins) {
    const { section } = plugin;
    if (same(section)) results.set(section, { section, status: 'unchanged' });
    else if (!plugin.reloadable)
      keep(section, 'restart-required', `Changes to ${section} require a restart.`);
    else {
      try {
        const status = (await plugin.reload?.(next[section], previous[section])) ?? 'reloaded';
        if (status === 'reloaded') results.set(section, { section, status });
        else keep(section, status);
      } catch (error) {
        keep(section, 'failed', reason(error));
      }
    }
  }
  results.set('collaboration', {
    section: 'collaboration',
    status: same('collaboration') ? 'unchanged' : 'reloaded',
  });
  const { host: oldHost, port: oldPort, bodyLimitBytes: oldLimit } = previous.server;
  if (
    next.server.host !== oldHost ||
    next.server.port !== oldPort ||
    next.server.bodyLimitBytes !== oldLimit
  ) {
    // The rest of the section (trustProxy, shutdownTimeoutMs) still applies live.
    applied.server = { ...next.server, host: oldHost, port: oldPort, bodyLimitBytes: oldLimit };
    results.set('server', {
      section: 'server',
      status: 'restart-required',
      error: RESTART_REQUIRED_MESSAGE,
    });
  } else
    results.set('server', { section: 'server', status: same('server') ? 'unchanged' : 'reloaded' });
  // The hub's logger reads `logging` at every line and the /metrics route reads `metrics` at every
  // request, so committing them applies them.
  for (const section of LIVE_SECTIONS)
    results.set(section, { section, status: same(section) ? 'unchanged' : 'reloaded' });
  for (const section of RESTART_ONLY_SECTIONS) {
    if (same(section)) results.set(section, { section, status: 'unchanged' });
    else keep(section, 'restart-required', `Changes to ${section} require a restart.`);
  }

  const config = applied as HubConfig;
  carryEnvironmentPaths(config, [next, previous]);
  host.commit(config);
  const changed = [...results.values()]
    .filter((r) => r.status === 'reloaded')
    .map((r) => r.section);
  await host.events.publish<ConfigReloadedEvent>(CONFIG_RELOADED, { changed, config, previous });
  // Other plugin sections were applied above, but the desktop client rejects unknown names.
  const known = new Set<string>(RELOAD_SECTIONS);
  return {
    ok: true,
    sections: RELOAD_SECTIONS.flatMap((name) => results.get(name) ?? []),
    others: [...results.values()].filter((r) => !known.has(r.section)),
  };
}

/**
 * Returns the reload function. Reloads never overlap (a SIGHUP during an HTTP reload waits for it),
 * and each logs one line with every section's status — never values, so no secrets.
 */
export function createReloader(host: ReloadHost): () => Promise<ReloadOutcome> {
  let queue: Promise<unknown> = Promise.resolve();
  return () => {
    const run = queue.then(async () => {
      const outcome = await reloadOnce(host);
      if (outcome.ok) {
        const all = [...outcome.sections, ...outcome.others];
        const summary = all
          .map((r) => `${r.section}: ${r.status}${r.error ? ` (${r.error})` : ''}`)
          .join(', ');
        const failed = all.filter((r) => r.status === 'failed');
        // A section that could not be applied keeps its old value: an operator must see that.
        if (failed.length > 0)
          host.log.error(
            `Config reload failed for ${failed.map((r) => r.section).join(', ')} (${summary}).`,
          );
        else host.log.info(`Config reloaded (${summary}).`);
      } else host.log.error(`Config reload failed: ${outcome.detail ?? outcome.fatalError}`);
      return outcome;
    });
    queue = run.catch(() => undefined);
    return run;
  };
}
