/**
 * The `audit` plugin: the append-only audit log of security and administrative events and of
 * workspace changes, `GET /admin/audit`, and its retention. The kernel and other plugins record
 * through `ctx.audit` (kernel/audit.ts) without importing this plugin; it registers the recorder.
 */
import { z } from 'zod';
import { definePlugin } from '../../kernel/plugin.ts';
import { auditApi } from './api.ts';
import { createRecorder } from './recorder.ts';
import { schedulePruning } from './retention.ts';
import { auditRoutes } from './routes.ts';
import { auditEventsTable } from './tables.ts';
import { recordWorkspaceChanges } from './workspace.ts';

export const DEFAULT_AUDIT_KEEP_DAYS = 365;

/**
 * The `history` section as far as the audit log reads it. The revisions feature owns the rest
 * of the section (`keepDays`, `maxRevisionsPerRecord`); this key belongs with them.
 */
export const historySchema = z
  .strictObject({
    /** Days an audit event is kept; 0 keeps them forever. @default 365 */
    auditKeepDays: z.coerce.number().int().min(0).default(DEFAULT_AUDIT_KEEP_DAYS),
  })
  .default({ auditKeepDays: DEFAULT_AUDIT_KEEP_DAYS });

export type HistoryConfig = z.output<typeof historySchema>;

export const auditPlugin = definePlugin<HistoryConfig>({
  name: 'audit',
  api: auditApi,
  config: { section: 'history', schema: historySchema, reloadable: true },
  tables: [auditEventsTable],
  migrations: [{ id: 'audit/0001-events', createTables: [auditEventsTable] }],
  setup(ctx) {
    ctx.audit.register(createRecorder(ctx.clock));
    const unsubscribe = recordWorkspaceChanges(ctx.events, ctx.audit, ctx.storage);
    const pruning = schedulePruning({
      tenants: () => ctx.identity.tenants.list(),
      storage: ctx.storage,
      keepDays: () => ctx.config().auditKeepDays,
      clock: ctx.clock,
      log: ctx.log,
      signal: ctx.signal,
    });
    void pruning.run();
    return {
      routes: auditRoutes(),
      async reload(next, previous) {
        if (next.auditKeepDays === previous.auditKeepDays) return 'unchanged';
        await pruning.run(next.auditKeepDays);
        return 'reloaded';
      },
      async close() {
        unsubscribe();
        await pruning.settled();
      },
    };
  },
});

// The plugin's public face: the only names others may import.
export { pruneAuditEvents } from './retention.ts';
export { auditPage, type AuditFilter } from './query.ts';
export { toAuditEventRecord, type AuditEventRecord } from './tables.ts';
export { ENTITIES_CHANGED_TOPIC, type EntityChangedEvent } from './workspace.ts';
export { ssoAuditEvent } from './sso.ts';
