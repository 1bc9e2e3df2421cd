/**
 * Prometheus metrics (`GET /metrics`) through `prom-client`. Each hub has its own registry, so two
 * hubs in one process (tests, a reload) never share or clash on series. The kernel records HTTP
 * requests, pool usage and throttle blocks; plugins record their own series through `ctx.metrics`
 * (see {@link PluginMetrics}), which is how the kernel avoids importing any plugin.
 */
import { timingSafeEqual } from 'node:crypto';
import { Buffer } from 'node:buffer';
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { createRequestTally } from './http/request-tally.ts';
import type { CacheStats } from './cache.ts';
import type { PoolStats } from './storage/contract.ts';

/** What a plugin may record; names get the `workspace_hub_` prefix and must be unique per hub. */
export interface PluginMetrics {
  counter(
    name: string,
    help: string,
    labelNames?: readonly string[],
  ): { inc(labels?: Record<string, string>, value?: number): void };
  gauge(
    name: string,
    help: string,
    labelNames?: readonly string[],
  ): {
    inc(labels?: Record<string, string>, value?: number): void;
    dec(labels?: Record<string, string>, value?: number): void;
    set(labels: Record<string, string>, value: number): void;
  };
  /** A gauge read when Prometheus scrapes, e.g. the size of a registry the plugin keeps anyway. */
  gaugeFrom(name: string, help: string, read: () => number): void;
}

export interface HubMetrics {
  readonly registry: Registry;
  readonly contentType: string;
  /** One finished request: method, route template (never the raw path), status, seconds. */
  observeRequest(method: string, route: string, status: number, seconds: number): void;
  /** A request refused with 429 by the failed-authentication throttle. */
  throttleBlocked(): void;
  forPlugin(plugin: string): PluginMetrics;
  render(): Promise<string>;
}

const PREFIX = 'workspace_hub_';
const METRIC_NAME = /^[a-z][a-z0-9_]*$/;

/** The label of requests that matched no route, so probing paths cannot grow the series. */
export const UNMATCHED_ROUTE = '(unmatched)';

let processRegistry: Registry | undefined;

/**
 * The runtime's own metrics (CPU, memory, event-loop lag, GC), collected once per process: each
 * collector starts monitors that live as long as the process, so hubs (tests build many) share it.
 */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    try {
      collectDefaultMetrics({ register: processRegistry, prefix: PREFIX });
    } catch {
      // A runtime without some process statistic (Deno lacks a few) still serves the others.
    }
  }
  return processRegistry;
}

/** The database pool's gauges, read at scrape time from the pool of the moment. */
function registerPoolGauges(registry: Registry, pool: () => PoolStats | null): void {
  const poolGauge = (name: string, help: string, read: (stats: PoolStats) => number | undefined) =>
    new Gauge({
      name: `${PREFIX}db_pool_${name}`,
      help,
      registers: [registry],
      collect() {
        const stats = pool();
        const value = stats ? read(stats) : undefined;
        if (value === undefined) this.reset();
        else this.set(value);
      },
    });
  poolGauge('connections', 'Open database connections in the pool', (s) => s.total);
  poolGauge('in_use', 'Database connections running a query or transaction', (s) => s.inUse);
  poolGauge('waiting', 'Queries waiting for a free database connection', (s) => s.waiting);
}

/** The read cache's counters and gauges, read at scrape time. */
function registerCacheMetrics(registry: Registry, cache: () => CacheStats): void {
  // The cache keeps its own numbers; they are read at scrape time.
  const cacheCounter = (name: string, help: string, read: (stats: CacheStats) => number) =>
    new Counter({
      name: `${PREFIX}cache_${name}_total`,
      help,
      registers: [registry],
      collect() {
        this.reset();
        this.inc(read(cache()));
      },
    });
  const cacheGauge = (name: string, help: string, read: (stats: CacheStats) => number) =>
    new Gauge({
      name: `${PREFIX}cache_${name}`,
      help,
      registers: [registry],
      collect() {
        this.set(read(cache()));
      },
    });
  cacheCounter('hits', 'Reads answered from the read cache', (s) => s.hits);
  cacheCounter(
    'misses',
    'Reads the read cache had to load (not counted while it is off)',
    (s) => s.misses,
  );
  cacheGauge('bytes', 'Memory the read cache holds, by its estimate', (s) => s.bytes);
  cacheGauge('entries', 'Values the read cache holds', (s) => s.entries);
}

/** Builds the registry; `pool` reads the current database pool (it changes on a reload). */
export function createHubMetrics(
  pool: () => PoolStats | null,
  cache?: () => CacheStats,
): HubMetrics {
  const registry = new Registry();
  // Requests are tallied in plain numbers (a map lookup and a few additions per request) and turned
  // into the two series only when Prometheus scrapes: prom-client's label hashing and histogram
  // observation per request cost more than the cheapest requests themselves.
  const tally = createRequestTally();
  registry.registerMetric(tally.requestsMetric(`${PREFIX}http_requests_total`));
  registry.registerMetric(tally.durationMetric(`${PREFIX}http_request_duration_seconds`));
  const throttled = new Counter({
    name: `${PREFIX}throttle_blocked_requests_total`,
    help: 'Requests refused with 429 by the failed-authentication throttle',
    registers: [registry],
  });
  registerPoolGauges(registry, pool);
  if (cache) registerCacheMetrics(registry, cache);

  const owned = new Map<string, string>();
  const claim = (plugin: string, name: string): string => {
    if (!METRIC_NAME.test(name))
      throw new Error(`Metric name "${name}" of plugin ${plugin} must be snake_case`);
    const full = PREFIX + name;
    const owner = owned.get(full);
    if (owner) throw new Error(`Metric ${full} is already registered by ${owner}`);
    owned.set(full, plugin);
    return full;
  };

  return {
    registry,
    contentType: registry.contentType,
    observeRequest: tally.observe,
    throttleBlocked: () => throttled.inc(),
    forPlugin(plugin) {
      return {
        counter(name, help, labelNames = []) {
          const counter = new Counter({
            name: claim(plugin, name),
            help,
            labelNames: [...labelNames],
            registers: [registry],
          });
          return { inc: (labels = {}, value = 1) => counter.inc(labels, value) };
        },
        gauge(name, help, labelNames = []) {
          const gauge = new Gauge({
            name: claim(plugin, name),
            help,
            labelNames: [...labelNames],
            registers: [registry],
          });
          return {
            inc: (labels = {}, value = 1) => gauge.inc(labels, value),
            dec: (labels = {}, value = 1) => gauge.dec(labels, value),
            set: (labels, value) => gauge.set(labels, value),
          };
        },
        gaugeFrom(name, help, read) {
          registry.registerMetric(
            new Gauge({
              name: claim(plugin, name),
              help,
              registers: [],
              collect() {
                this.set(read());
              },
            }),
          );
        },
      };
    },
    render: () => Registry.merge([processMetrics(), registry]).metrics(),
  };
}

/** Constant-time comparison of the presented bearer token with the configured one. */
export function metricsTokenMatches(header: string | undefined, token: string): boolean {
  const presented = /^Bearer\s+(\S+)$/i.exec(header?.trim() ?? '')?.[1] ?? '';
  const a = Buffer.from(presented);
  const b = Buffer.from(token);
  // Compare equal-length buffers so the time does not reveal the token's length either.
  const padded = Buffer.alloc(b.length);
  a.copy(padded, 0, 0, Math.min(a.length, b.length));
  return timingSafeEqual(padded, b) && a.length === b.length;
}
