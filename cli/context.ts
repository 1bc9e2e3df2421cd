/**
 * Opening the hub for one command: load server.yaml the way the server does, build a logger on
 * stderr, and resolve `--tenant` to a store bound to that tenant.
 */
import { resolve } from 'node:path';
import type { HubConfig, LoadedConfig, SectionSchemas } from '../kernel/config/load.ts';
import { loadConfig } from '../kernel/config/load.ts';
import { createHub, type Hub } from '../kernel/hub.ts';
import { DEFAULT_TENANT_ID, validateTenantId } from '../kernel/identity/tenants.ts';
import { createLogger, type Logger } from '../kernel/log.ts';
import type { Store } from '../kernel/storage/contract.ts';
import { CLI_CONTEXT } from '../kernel/storage/context.ts';
import type { DbConfig } from '../kernel/storage/config.ts';
import { hubSchemaOf } from '../kernel/storage/kysely/sqlite-files.ts';
import { createMemoryThrottleStore } from '../kernel/throttle/memory.ts';
import { escapeUnprintable } from '../kernel/text.ts';
import { plugins } from '../plugins/index.ts';
import { CliError } from './errors.ts';

/** The options every command accepts (see `commonArgs`). */
export interface CommonOptions {
  config?: string | undefined;
  verbose?: boolean | undefined;
}

/** Each plugin's config section, so server.yaml validates exactly as it does for the server. */
export function pluginSections(): SectionSchemas {
  return Object.fromEntries(
    plugins.filter((p) => p.config).map((p) => [p.config!.section, p.config!.schema]),
  );
}

/**
 * Sections and keys no command but `start` acts on: the others keep their throttle in the
 * process, serve no metrics, sign no one in (so need no client secret), call no LLM and list no
 * plugin catalogs. So a secret of theirs that only the service's environment holds
 * (`${HUB_OIDC_SECRET}` from a systemd EnvironmentFile) does not stop `user list` in an operator's
 * shell: it is left out, with a warning. The rest of `sso` is used (the issuer of links and
 * blocks, the lifetime of a linked user's tokens), so only its secret may be missing.
 */
export const SERVER_ONLY_PATHS = [
  'redis',
  'metrics',
  'sso.oidc.clientSecret',
  'llm',
  'plugins',
] as const;

/**
 * Loads `--config`, else ./server.yaml, else the built-in defaults. A variable missing under one
 * of `unused` leaves that section or key out with a warning on stderr. Throws `ConfigError`.
 */
export function loadCliConfig(
  options: CommonOptions,
  unused: readonly string[] = SERVER_ONLY_PATHS,
): Promise<LoadedConfig> {
  return loadConfig({
    explicitPath: options.config,
    cwd: process.cwd(),
    env: process.env,
    pluginSections: pluginSections(),
    unused: {
      paths: unused,
      warn: (message) => process.stderr.write(`warning: ${escapeUnprintable(message)}\n`),
    },
  });
}

/**
 * The logger of a one-shot command: warnings and errors only, so a command's output is not
 * buried in start-up lines; `--verbose` shows everything. Always stderr.
 */
export function commandLogger(config: HubConfig, verbose: boolean | undefined): Logger {
  const configured = config.logging.level;
  const level = verbose
    ? 'debug'
    : configured === 'error' || configured === 'silent'
      ? configured
      : 'warn';
  return createLogger({ ...config.logging, level });
}

const MULTITENANCY_DISABLED =
  'Multitenancy is disabled in server.yaml. Set multitenancy.enabled to true to use non-default tenants.';

/** Checks `--tenant` against the config before anything touches the database. */
export function resolveTenantOption(config: HubConfig, raw: string | undefined): string {
  if (raw === undefined) return DEFAULT_TENANT_ID;
  const id = validateTenantId(raw);
  if (id !== DEFAULT_TENANT_ID && !config.multitenancy.enabled)
    throw new CliError(MULTITENANCY_DISABLED);
  return id;
}

/** Refuses a command that needs non-default tenants when multitenancy is off. */
export function requireMultitenancy(config: HubConfig): void {
  if (!config.multitenancy.enabled) throw new CliError(MULTITENANCY_DISABLED);
}

/**
 * Refuses to run on an embedded database file that is not a hub's: every command but `start` and
 * `migrate` would otherwise create a new, empty database there and report on it ("No users
 * found."), hiding a mistyped `db.path` or a copy that lacks its data.
 */
export function requireHubDatabase(db: DbConfig): void {
  if (db.driver !== 'sqlite' || db.path === ':memory:') return;
  const path = resolve(db.path);
  const state = hubSchemaOf(path);
  if (state === 'hub') return;
  const what = {
    missing: 'the file does not exist',
    'not-sqlite': 'the file is not an SQLite database',
    'no-hub-schema': 'the file has no workspace-hub schema',
  }[state];
  throw new CliError(
    `No hub database at ${path} (db.path): ${what}. Run "workspace-hub start" or "workspace-hub migrate" to create one there, or point db.path (or --config) at the hub's database.`,
  );
}

/**
 * Opens the hub (the same storage, migrations check, provisioning and plugins as the server, so
 * every rule and access-list resolver applies), runs `fn`, and always closes the hub. The CLI never
 * authenticates anyone, so an in-process throttle store avoids connecting to Redis.
 */
export async function withHub<R>(
  loaded: LoadedConfig,
  verbose: boolean | undefined,
  fn: (hub: Hub) => Promise<R>,
): Promise<R> {
  requireHubDatabase(loaded.config.db);
  const hub = await createHub({
    config: loaded.config,
    configPath: loaded.path,
    plugins,
    throttle: createMemoryThrottleStore(),
    log: commandLogger(loaded.config, verbose),
  });
  try {
    return await fn(hub);
  } finally {
    await hub.close();
  }
}

/** What a user or token command works with. */
export interface TenantContext {
  hub: Hub;
  store: Store;
  tenantId: string;
}

/**
 * Loads the config, checks `--tenant`, opens the hub and hands `fn` a store bound to the tenant.
 * Commands parse their own flags before calling this, so a bad flag never opens the database.
 */
export async function withTenant<R>(
  options: CommonOptions & { tenant?: string | undefined },
  fn: (ctx: TenantContext) => Promise<R>,
): Promise<R> {
  const loaded = await loadCliConfig(options);
  const tenantId = resolveTenantOption(loaded.config, options.tenant);
  return withHub(loaded, options.verbose, async (hub) => {
    if (tenantId !== DEFAULT_TENANT_ID && !(await hub.identity.tenants.get(tenantId))) {
      throw new CliError(`No tenant found with id "${tenantId}".`);
    }
    // What a command changes is audited as the command line's doing (no actor, `via: "cli"`).
    return fn({ hub, store: hub.driver().forTenant(tenantId, CLI_CONTEXT), tenantId });
  });
}
