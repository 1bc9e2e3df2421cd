/**
 * The kernel ↔ plugin contract. A feature is a plain object made with {@link definePlugin}: its name,
 * the plugins it needs, its config section, its tables and migrations, and a `setup` that returns
 * its routes and optional reload/close handlers. The kernel knows this contract and the list in
 * plugins/index.ts — nothing about features.
 */
import { Hono, type Context } from 'hono';
import { createFactory } from 'hono/factory';
import type { z } from 'zod';
import type { AuditScope, AuditSink } from './audit.ts';
import type { Clock } from './clock.ts';
import type { InProcessApi } from './http/in-process.ts';
import type { RouteDocs } from './http/openapi.ts';
import type { CountRegistry } from './http/counts.ts';
import type { HubConfig } from './config/load.ts';
import type { EventBus } from './events.ts';
import type { Identity } from './identity/identity.ts';
import type { ApiTokenRow, TenantRow, UserRow } from './identity/tables.ts';
import type { Logger } from './log.ts';
import type { PluginMetrics } from './metrics.ts';
import type { ReadCache } from './cache.ts';
import type { Migration, Store } from './storage/contract.ts';
import type { StoreContext } from './storage/context.ts';
import type { Table } from './storage/table.ts';
import type { ThrottleGuard } from './throttle/contract.ts';

/** What every request carries once the pipeline has run (set in this order). */
export interface KernelVariables {
  requestId: string;
  log: Logger;
  /** Who is asking and from where, for the audit log and the history (audit.ts). */
  auditScope: AuditScope;
  tenant: TenantRow;
  /** Storage bound to the request's tenant. */
  store: Store;
  /** Present on protected routes after bearer auth. */
  auth: { user: UserRow; token: ApiTokenRow };
}

export interface KernelEnv {
  Variables: KernelVariables;
}

/** `factory.createApp()` gives plugins a Hono app typed with {@link KernelEnv}. */
export const factory = createFactory<KernelEnv>();

export type ReloadStatus = 'reloaded' | 'unchanged' | 'failed' | 'restart-required';

export interface PluginContext<Section> {
  /** The plugin's current config section; a getter so a reload needs no re-mount. */
  config(): Section;
  /** The whole validated configuration (read-only view of other sections). */
  hubConfig(): HubConfig;
  identity: Identity;
  /**
   * Storage bound to a tenant, for work outside a request (requests use `c.get('store')`), or
   * for a handler's store of another tenant, with `actingAs(c.get('auditScope'))` as its context
   * (kernel/storage/context.ts) so what it records names the request.
   */
  storage(tenantId: string, context?: StoreContext): Store;
  events: EventBus;
  log: Logger;
  clock: Clock;
  /** Aborted when the hub shuts down. */
  signal: AbortSignal;
  /** The failed-authentication throttle (same store and policy as bearer auth) for public routes. */
  throttle: ThrottleGuard;
  /** The client's address as the throttle sees it (honours `server.trustProxy`). */
  clientIp(c: Context<KernelEnv>): string;
  /** Prometheus series of the plugin's own (`workspace_hub_<name>`), served on `GET /metrics`. */
  metrics: PluginMetrics;
  /**
   * Values derived from tables, kept in process until a row of those tables changes in any
   * process (see kernel/cache.ts). Put the tenant in every key.
   */
  cache: ReadCache;
  /**
   * The audit log: `record(tx, event)` inside the transaction of the change it describes. The
   * acting user, address and request id come from the request (or the CLI) by themselves.
   */
  audit: AuditSink;
  /**
   * Runs a request through the hub's own pipeline, in process, acting as a user's token
   * (`http/in-process.ts`): for pages that show what the API answers, under the API's rules.
   */
  api: InProcessApi;
  /** What `GET /admin/overview` counts of the plugin's records (`http/overview.ts`). */
  counts: CountRegistry;
}

export interface PluginInstance<Section = unknown> {
  /** Routes that need a bearer token. */
  routes?: Hono<KernelEnv>;
  /** Routes anyone may call (health, /join, invitation preview and redeem). */
  publicRoutes?: Hono<KernelEnv>;
  /**
   * HTML pages that take form posts (the web console): mounted before the JSON-only body check
   * and the tenant step, so a body may be `application/x-www-form-urlencoded`, and the pages pick
   * their tenant themselves. No bearer token; they keep their own session.
   */
  pages?: Hono<KernelEnv>;
  /** Applies a changed config section live; the kernel calls it only when the section changed. */
  reload?(next: Section, previous: Section): Promise<ReloadStatus | void>;
  /** Releases resources on shutdown (called in reverse dependency order). */
  close?(): Promise<void>;
}

export interface PluginConfigSection<Section> {
  /** Top-level key in server.yaml. */
  section: string;
  /** Strict zod schema with defaults; `.optional()` when the section's absence means "off". */
  schema: z.ZodType<Section>;
  /** Whether a reload applies changes live. @default true */
  reloadable?: boolean;
}

export interface PluginDefinition<Section = unknown> {
  name: string;
  /** Plugins whose `setup` must run first. */
  dependencies?: string[];
  config?: PluginConfigSection<Section>;
  /**
   * Tables this plugin owns (migrations create them). The kernel exports and imports their rows,
   * deletes a tenant's rows with the tenant, and records their changes in the change feed that
   * invalidates the read cache.
   */
  tables?: Table[];
  /** Versioned schema steps; ids must start with `<plugin name>/`. */
  migrations?: Migration[];
  /**
   * Summaries, success responses and handler errors of the plugin's routes, keyed `METHOD /path`
   * as declared; request bodies and parameters come from the routes' validators (see
   * kernel/http/openapi.ts). Every mounted route needs an entry (test/kernel/openapi.test.ts).
   */
  api?: RouteDocs;
  setup(ctx: PluginContext<Section>): PluginInstance<Section> | Promise<PluginInstance<Section>>;
}

/** Identity helper that gives a plugin definition its types. */
export function definePlugin<Section = undefined>(
  definition: PluginDefinition<Section>,
): PluginDefinition<Section> {
  return definition;
}

/** A Hono app for a plugin's routes. */
export function createPluginApp(): Hono<KernelEnv> {
  return factory.createApp();
}
