/**
 * What the hub's config reload changes while it serves: the config itself, and the connections a
 * new `db` or `redis` section replaces (see config/reload.ts for what a reload re-reads and
 * applies). An old connection is closed once the requests that started before the swap have
 * finished (swap.ts), and only if the hub opened it.
 */
import type { AuditScope, AuditSink } from './audit.ts';
import type { CacheStats, ReadCache } from './cache.ts';
import type { Clock } from './clock.ts';
import type { Env } from './config/interpolate.ts';
import type { HubConfig } from './config/load.ts';
import { createReloader, pluginReloadTargets, type ReloadOutcome } from './config/reload.ts';
import { auditedReload } from './config/reload-audit.ts';
import type { EventBus } from './events.ts';
import type { TenantCache } from './http/tenant.ts';
import { DEFAULT_TENANT_ID } from './identity/tenants.ts';
import type { Logger } from './log.ts';
import type { PluginDefinition, PluginInstance } from './plugin.ts';
import type { Migration, StorageDriver } from './storage/contract.ts';
import type { Table } from './storage/table.ts';
import type { ThrottleStore } from './throttle/contract.ts';
import { openVerifiedDriver, openVerifiedThrottle, type Retirement } from './swap.ts';

/** The hub's config and connections as they are now: a reload replaces them in place. */
export interface Live {
  config: HubConfig;
  driver: StorageDriver;
  /** Whether the hub opened the driver, and so closes it (a test's shared driver it does not). */
  ownsDriver: boolean;
  throttle: ThrottleStore;
  ownsThrottle: boolean;
}

/** What the hub opened before its plugins (hub.ts `openKernel`). */
export interface OpenedKernel {
  live: Live;
  log: Logger;
  clock: Clock;
  cache: ReadCache & { stats(): CacheStats };
  audit: AuditSink;
  plugins: readonly PluginDefinition<any>[];
  migrations: readonly Migration[];
  tables: readonly Table[];
}

/** Where the config comes from, as the hub was created. */
export interface ReloadSource {
  /** The file the config came from, or null on built-in defaults. */
  configPath?: string | null | undefined;
  /** With no `configPath`: the file a reload reads once it exists. */
  defaultConfigPath?: string | null | undefined;
  /** @default process.env */
  env?: Env | undefined;
  /** Apply pending migrations to a new database (default: only on embedded SQLite). */
  migrate?: boolean | undefined;
}

/** The hub's `reload`: re-reads the config, applies it to `live`, and records it in the audit log. */
export function hubReload(
  kernel: OpenedKernel,
  source: ReloadSource,
  serving: {
    instances: readonly { name: string; instance: PluginInstance<any> }[];
    events: EventBus;
    tenants: TenantCache;
    retirement: Retirement;
  },
): (scope?: AuditScope) => Promise<ReloadOutcome> {
  const { live, log } = kernel;
  const { retirement } = serving;
  const configPath = source.configPath ?? null;
  const reloader = createReloader({
    configPath,
    defaultConfigPath: source.defaultConfigPath ?? null,
    env: source.env ?? globalThis.process?.env ?? {},
    ...pluginReloadTargets(kernel.plugins, serving.instances),
    current: () => live.config,
    commit: (next) => void (live.config = next),
    async swapDriver(next) {
      const fresh = await openVerifiedDriver(next, {
        migrations: kernel.migrations,
        tables: () => kernel.tables,
        clock: kernel.clock,
        log,
        migrate: source.migrate,
      });
      const [old, owned] = [live.driver, live.ownsDriver];
      [live.driver, live.ownsDriver] = [fresh, true];
      serving.tenants.invalidate();
      kernel.cache.clear();
      retirement.retire('database connection', async () => (owned ? old.close() : undefined));
    },
    async swapThrottle(next) {
      const fresh = await openVerifiedThrottle(next, log, live.config.db.driver);
      const [old, owned] = [live.throttle, live.ownsThrottle];
      [live.throttle, live.ownsThrottle] = [fresh, true];
      retirement.retire('throttle store', async () => (owned ? old.close() : undefined));
    },
    events: serving.events,
    log,
  });
  return auditedReload(reloader, {
    audit: kernel.audit,
    store: (context) => live.driver.forTenant(DEFAULT_TENANT_ID, context),
    configPath,
    log,
  });
}
