/**
 * The kernel's own config sections. Plugins bring their sections in their manifests; the kernel
 * composes all of them into one strict schema (see load.ts).
 */
import { z } from 'zod';
import { notSecret, secret } from './secrets.ts';
import { dbSchema } from '../storage/config.ts';
import { redisSchema } from '../redis/config.ts';

const envBoolean = z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]);

/** An http(s) URL without credentials, query or fragment; kept without a trailing slash. */
const publicUrl = z.string().transform((raw, ctx) => {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    ctx.addIssue({
      code: 'custom',
      message: `expected an http(s) URL such as https://hub.example.com, got ${JSON.stringify(raw)}`,
    });
    return z.NEVER;
  }
  if (
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    url.search ||
    url.hash ||
    url.username ||
    url.password
  ) {
    // The given URL is not echoed: it may carry a password.
    ctx.addIssue({
      code: 'custom',
      message: 'expected an http(s) URL without credentials, query or fragment',
    });
    return z.NEVER;
  }
  return url.href.replace(/\/+$/, '');
});

export const serverSchema = z
  .strictObject({
    /** Interface to bind. @default 127.0.0.1 */
    host: z.string().min(1).default('127.0.0.1'),
    /** TCP port. @default 8788 */
    port: z.coerce.number().int().min(1).max(65535).default(8788),
    /** Largest accepted request body in bytes; larger bodies get 413. @default 5 MiB */
    bodyLimitBytes: z.coerce
      .number()
      .int()
      .min(1024)
      .max(512 * 1024 * 1024)
      .default(5 * 1024 * 1024),
    /** Take the client address from `X-Forwarded-For` (only behind a trusted proxy). @default false */
    trustProxy: envBoolean.default(false),
    /** How long shutdown waits for requests in flight, in milliseconds. @default 10000 */
    shutdownTimeoutMs: z.coerce.number().int().min(0).default(10_000),
    /**
     * The address clients reach the hub at (behind a proxy, the proxy's https URL). Every link the
     * hub hands out (invitations) uses it. @default http://<host>:<port>
     */
    // Refuses credentials, so showing it (GET /admin/config) gives nothing away.
    publicUrl: notSecret(publicUrl.optional()),
    /**
     * Memory for the read cache (authenticated tokens, serialized lists), in bytes; 0 turns it
     * off. Used on SQLite and PostgreSQL, which tell the hub of every write. @default 64 MiB
     */
    cacheBytes: z.coerce
      .number()
      .int()
      .min(0)
      .max(16 * 1024 * 1024 * 1024)
      .default(64 * 1024 * 1024),
  })
  .default({
    host: '127.0.0.1',
    port: 8788,
    bodyLimitBytes: 5 * 1024 * 1024,
    trustProxy: false,
    shutdownTimeoutMs: 10_000,
    cacheBytes: 64 * 1024 * 1024,
  });

export const multitenancySchema = z
  .strictObject({
    /** Allow tenants other than `__default__` (header `X-Hub-Tenant`). @default false */
    enabled: envBoolean.default(false),
  })
  .default({ enabled: false });

export const collaborationSchema = z
  .strictObject({
    /** Require end-to-end encrypted discussion bodies hub-wide. YAML boolean only. @default false */
    e2ee: z.boolean().default(false),
  })
  .default({ e2ee: false });

const DEFAULT_HISTORY_BYTES_PER_USER = 64 * 1024 * 1024;
const DEFAULT_HISTORY_BYTES_PER_TENANT = 4 * 1024 * 1024 * 1024;

export const historySchema = z
  .strictObject({
    /** Days a revision of a workspace record is kept; 0 keeps them forever. @default 90 */
    keepDays: z.number().int().min(0).default(90),
    /**
     * Revisions kept per record, newest first: a change beyond it removes the oldest in its own
     * transaction. @default 100
     */
    maxRevisionsPerRecord: z.number().int().min(1).default(100),
    /**
     * Bytes of revisions one user's changes may keep (per tenant: the snapshots as JSON); a change
     * that would start over it is refused (409). 0 means no limit. @default 64 MiB
     */
    maxBytesPerUser: z
      .number()
      .int()
      .min(0)
      .max(Number.MAX_SAFE_INTEGER)
      .default(DEFAULT_HISTORY_BYTES_PER_USER),
    /** The same for everyone's changes in one tenant together. 0 means no limit. @default 4 GiB */
    maxBytesPerTenant: z
      .number()
      .int()
      .min(0)
      .max(Number.MAX_SAFE_INTEGER)
      .default(DEFAULT_HISTORY_BYTES_PER_TENANT),
    /** Days an audit event is kept; 0 keeps them forever. @default 365 */
    auditKeepDays: z.number().int().min(0).default(365),
    /** Seconds between two background prunings. @default 600 */
    pruneIntervalSeconds: z.number().int().min(1).max(86_400).default(600),
  })
  .default({
    keepDays: 90,
    maxRevisionsPerRecord: 100,
    maxBytesPerUser: DEFAULT_HISTORY_BYTES_PER_USER,
    maxBytesPerTenant: DEFAULT_HISTORY_BYTES_PER_TENANT,
    auditKeepDays: 365,
    pruneIntervalSeconds: 600,
  });

export const loggingSchema = z
  .strictObject({
    /** @default info */
    level: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
    /** `pretty` for people, `json` for log collectors. @default pretty */
    format: z.enum(['pretty', 'json']).default('pretty'),
    /** One `info` line per request (method, route template, status, duration, …). @default true */
    accessLog: envBoolean.default(true),
  })
  .default({ level: 'info', format: 'pretty', accessLog: true });

export const metricsSchema = z
  .strictObject({
    /** Serve `GET /metrics` (Prometheus text format). @default true */
    enabled: envBoolean.default(true),
    /** When set, `/metrics` needs `Authorization: Bearer <token>`; write it as `${ENV}`. */
    token: secret(z.string().min(16, 'must be at least 16 characters').optional()),
    /**
     * Without a token, answer `/metrics` to every client rather than only to clients on this host
     * (loopback, by the address the hub computes; see `server.trustProxy`). @default false
     */
    public: envBoolean.default(false),
  })
  .default({ enabled: true, public: false });

export const kernelSections = {
  server: serverSchema,
  db: dbSchema,
  redis: redisSchema.optional(),
  multitenancy: multitenancySchema,
  collaboration: collaborationSchema,
  history: historySchema,
  logging: loggingSchema,
  metrics: metricsSchema,
};

export type ServerConfig = z.output<typeof serverSchema>;
export type HistoryConfig = z.output<typeof historySchema>;
export type LoggingConfig = z.output<typeof loggingSchema>;
export type MetricsConfig = z.output<typeof metricsSchema>;
