/**
 * The `audit` plugin: the append-only audit log of security and administrative events and of
 * workspace changes, `GET /admin/audit`, and its retention. The kernel and other plugins record
 * through `ctx.audit` (kernel/audit.ts) without importing this plugin; it registers the recorder.
 */
import { CONFIG_RELOADED, type ConfigReloadedEvent } from '../../kernel/config/reload.ts';
import { definePlugin } from '../../kernel/plugin.ts';
import { auditApi } from './api.ts';
import { createRecorder } from './recorder.ts';
import { schedulePruning } from './retention.ts';
import { auditRoutes } from './routes.ts';
import { auditEventsTable } from './tables.ts';
import { keepPrunedChanges, keptSince } from './workspace.ts';

export const auditPlugin = definePlugin({
  name: 'audit',
  // Workspace changes are entities' revisions (its change log).
  dependencies: ['entities'],
  api: auditApi,
  tables: [auditEventsTable],
  migrations: [
    { id: 'audit/0001-events', createTables: [auditEventsTable] },
    { id: 'audit/0002-newest-first-index', addIndexes: [auditEventsTable] },
  ],
  setup(ctx) {
    ctx.audit.register(createRecorder(ctx.clock));
    const keepDays = () => ctx.hubConfig().history.auditKeepDays;
    const unsubscribe = keepPrunedChanges(ctx.events, keepDays, () => ctx.clock.now());
    const pruning = schedulePruning({
      tenants: () => ctx.identity.tenants.list(),
      storage: ctx.storage,
      // `history.auditKeepDays`, a kernel section (entities keep revisions by the rest of it).
      keepDays,
      clock: ctx.clock,
      log: ctx.log,
      signal: ctx.signal,
    });
    void pruning.run();
    // A reload that changed `auditKeepDays` prunes by the new value at once.
    const unwatch = ctx.events.subscribe<ConfigReloadedEvent>(CONFIG_RELOADED, async (event) => {
      const next = event.config.history.auditKeepDays;
      if (next !== event.previous.history.auditKeepDays) await pruning.run(next);
    });
    return {
      routes: auditRoutes(() => keptSince(keepDays(), ctx.clock.now())),
      async close() {
        unsubscribe();
        unwatch();
        await pruning.settled();
      },
    };
  },
});

// The plugin's public face: the only names others may import.
export { pruneAuditEvents } from './retention.ts';
export { auditPage, type AuditFilter } from './query.ts';
export { toAuditEventRecord, type AuditEventRecord } from './tables.ts';
export { keptSince } from './workspace.ts';
