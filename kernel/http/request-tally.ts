/**
 * The requests the hub answered, tallied per method, route template and status in plain numbers,
 * and shown to Prometheus as `…http_requests_total` (a counter) and
 * `…http_request_duration_seconds` (a histogram) only when it scrapes (`kernel/metrics.ts`
 * registers both). Same series, names, labels and buckets as prom-client's own Counter and
 * Histogram would give; what it saves is their label hashing and bucket walk on every request.
 */
import type { Metric } from 'prom-client';

export const DURATION_BUCKETS = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
] as const;

interface Series {
  labels: { method: string; route: string; status: string };
  count: number;
  sum: number;
  /** Observations per bucket (not cumulative); the last slot is above every bound (+Inf). */
  buckets: number[];
}

interface Value {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

/** What a registry reads of a metric (`registerMetric`, `metrics()`, `merge`). */
function scraped(
  name: string,
  help: string,
  type: 'counter' | 'histogram',
  values: () => Value[],
): Metric {
  const get = async () => ({ name, help, type, values: values(), aggregator: 'sum' as const });
  return { name, help, type, get, reset: () => undefined } as unknown as Metric;
}

export function createRequestTally() {
  const series = new Map<string, Series>();
  return {
    /** One finished request; `seconds` from its arrival to its response. */
    observe(method: string, route: string, status: number, seconds: number): void {
      const key = `${method} ${status} ${route}`;
      let entry = series.get(key);
      if (!entry) {
        entry = {
          labels: { method, route, status: String(status) },
          count: 0,
          sum: 0,
          buckets: Array.from({ length: DURATION_BUCKETS.length + 1 }, () => 0),
        };
        series.set(key, entry);
      }
      entry.count++;
      entry.sum += seconds;
      let bucket = 0;
      while (bucket < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[bucket]!) bucket++;
      entry.buckets[bucket]!++;
    },
    requestsMetric(name: string): Metric {
      return scraped(name, 'HTTP requests answered', 'counter', () =>
        [...series.values()].map((s) => ({ labels: s.labels, value: s.count })),
      );
    },
    durationMetric(name: string): Metric {
      return scraped(
        name,
        'Time from receiving a request to its response headers',
        'histogram',
        () =>
          [...series.values()].flatMap((s) => {
            let cumulative = 0;
            const buckets = DURATION_BUCKETS.map((le, i) => {
              cumulative += s.buckets[i]!;
              return {
                labels: { le, ...s.labels },
                value: cumulative,
                metricName: `${name}_bucket`,
              };
            });
            return [
              ...buckets,
              {
                labels: { le: '+Inf', ...s.labels },
                value: s.count,
                metricName: `${name}_bucket`,
              },
              { labels: s.labels, value: s.sum, metricName: `${name}_sum` },
              { labels: s.labels, value: s.count, metricName: `${name}_count` },
            ];
          }),
      );
    },
  };
}
