/**
 * The `entities` plugin: collections, environments, snippets, live servers and live pages (the
 * top-level kinds), folders, saved requests and documents inside collections, run results, and
 * their admin routes, every kind described once in the registry (kinds/index.ts). It also tells
 * the kernel which access-list ids exist, so `/admin/users` rejects unknown ids and reports stale
 * ones. Other plugins attach things to its entities through targets (see targets.ts) and learn of
 * deletions through `entities.deleted` (events.ts). Every change to a workspace record is kept as
 * a revision (history/record.ts), which the audit log reads as the change's event
 * (history/change-log.ts).
 */
import { createPluginApp, definePlugin } from '../../kernel/plugin.ts';
import type { Store } from '../../kernel/storage/contract.ts';
import type { Table } from '../../kernel/storage/table.ts';
import type { EntityDeps } from './deps.ts';
import { purgeHistory, type PurgeDeps } from './history/purge.ts';
import { startPruning } from './history/prune.ts';
import { revisionRoutes } from './history/revisions.ts';
import { historySubjects } from './history/subjects.ts';
import { trashRoutes } from './history/trash.ts';
import { createUsageLedger, FLUSH_INTERVAL_MS } from './history/usage.ts';
import { topLevelKinds } from './kinds/behaviours.ts';
import { ITEM_KINDS, kind, TOP_LEVEL_KINDS, type HistoryKind } from './kinds/index.ts';
import { entitiesApi } from './routes/api.ts';
import { folderRoutes } from './routes/folders.ts';
import { itemRoutes } from './routes/items.ts';
import { mountTopLevelKind } from './routes/top-level.ts';
import { runResultRoutes } from './run-results/routes.ts';
import { runResultsSchema, type RunResultsConfig } from './run-results/usage.ts';
import { entityMigrations, entityTables, runResultUsageTable } from './tables.ts';

/** The names of the kinds that keep history, in the order their routes are mounted. */
export const HISTORY_KIND_NAMES: readonly HistoryKind[] = historySubjects.map((kind) => kind.name);

/**
 * Purges the history of a record of `kind` (history/purge.ts), for `workspace-hub history purge`;
 * the admin route is mounted with the other history routes.
 */
export function purgeRecordHistory(
  store: Store,
  deps: PurgeDeps,
  kind: HistoryKind,
  id: string,
): Promise<{ purged: number }> {
  const subject = historySubjects.find((candidate) => candidate.name === kind);
  if (!subject) throw new Error(`No history kind ${kind}`);
  return purgeHistory(store, deps, subject, id);
}

export const entitiesPlugin = definePlugin<RunResultsConfig>({
  name: 'entities',
  // Read per request, so a reload applies new limits at once.
  config: { section: 'runResults', schema: runResultsSchema, reloadable: true },
  tables: entityTables,
  migrations: entityMigrations,
  api: entitiesApi(topLevelKinds, ITEM_KINDS),
  setup(ctx) {
    // Which ids of each access list exist: the rows of the kind it names.
    for (const kind of TOP_LEVEL_KINDS) {
      const table: Table = kind.table;
      ctx.identity.access.register({
        field: kind.field,
        tables: [table],
        existing: async (store, ids) =>
          new Set((await store.table(table).getMany(ids)).map((row) => row.id as string)),
      });
    }
    // What the administrator's overview counts (`GET /admin/overview`).
    ctx.counts.register('collections', (store) => store.table(kind('collection').table).count());
    ctx.counts.register('requests', (store) => store.table(kind('request').table).count());
    const deps: EntityDeps = {
      clock: ctx.clock,
      events: ctx.events,
      cache: ctx.cache,
      audit: ctx.audit,
      history: () => ctx.hubConfig().history,
      usage: createUsageLedger((tenantId) => ctx.storage(tenantId)),
    };
    const routes = createPluginApp();
    for (const kind of topLevelKinds) mountTopLevelKind(routes, deps, kind);
    folderRoutes(routes, deps);
    for (const kind of ITEM_KINDS) itemRoutes(routes, deps, kind);
    runResultRoutes(routes, deps, () => ctx.config());
    revisionRoutes(routes, deps, historySubjects);
    trashRoutes(routes);
    const pruner = startPruning(ctx);
    const flushUsage = setInterval(() => void deps.usage.flush(), FLUSH_INTERVAL_MS);
    flushUsage.unref?.();
    // A deleted account's runs stay (their collection's members may still read them); its usage
    // row goes, as nobody can store more under that account.
    ctx.identity.users.onDelete(async (tx, user) => {
      await tx.table(runResultUsageTable).delete(user.id);
    });
    return {
      routes,
      async close() {
        pruner.stop();
        clearInterval(flushUsage);
        await deps.usage.flush();
      },
    };
  },
});

// The plugin's public face: the only names other plugins may import from entities.
export {
  ENTITIES_DELETED,
  ITEM_MOVED,
  type DeletedKind,
  type EntitiesDeletedEvent,
  type ItemMovedEvent,
} from './events.ts';
export {
  changesPage,
  REVISIONS_PRUNED,
  type ChangeQuery,
  type ChangeRow,
  type RevisionsPrunedEvent,
} from './history/change-log.ts';
export { REVISION_ACTIONS, type RevisionAction } from './history/tables.ts';
export type { HistoryKind } from './kinds/index.ts';
export { RUN_RESULT_CREATED } from './run-results/routes.ts';
export { runResultUsage, type RunResultsConfig, type RunResultUsage } from './run-results/usage.ts';
export {
  assertTargetAccess,
  canAccessTarget,
  checkTarget,
  loadTarget,
  requireTarget,
  TARGET_KINDS,
  TARGET_NOT_FOUND,
  TARGET_TYPES,
  targetTables,
  type EntityTarget,
  type TargetKind,
  type TargetType,
} from './targets.ts';
export { COLLECTION_ACCESS, RECORD_KINDS, type RecordKind } from './kinds/index.ts';
