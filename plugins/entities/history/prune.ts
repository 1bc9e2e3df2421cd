/**
 * Background pruning of revisions, by the `history` section read at every run (so a reload
 * applies at the next one): revisions older than `keepDays` (by the hub's clock; 0 keeps them
 * forever), and, per record, all but the newest `maxRevisionsPerRecord`. Each run looks at the
 * revisions written since the previous run began (all of them after a start), page by page, so a
 * run costs what was written meanwhile. One run at a time, every `pruneIntervalSeconds`.
 *
 * A revision is also its change's audit event, which the audit log may keep longer: every page
 * of revisions is handed to `entities.revisions-pruned` in the transaction that deletes it, which
 * also takes its bytes off the history usage (removal.ts).
 */
import type { HistoryConfig } from '../../../kernel/config/sections.ts';
import type { EventBus } from '../../../kernel/events.ts';
import type { PluginContext } from '../../../kernel/plugin.ts';
import type { Store, Where } from '../../../kernel/storage/contract.ts';
import { timeIdPrefix } from '../../../kernel/time-id.ts';
import { dropRevisions } from './removal.ts';
import { tallyRevisions } from './usage.ts';
import { revisionsTable, trashTable, type RevisionRow } from './tables.ts';

const DAY_MS = 86_400_000;
const PAGE = 500;

/**
 * Deletes the revisions `where` selects, a page at a time, each page read and removed in one
 * transaction, with its audit hand-over and its bytes taken off the history usage. Every page is deleted, so the
 * order only has to be one an index serves with `where` (also on Firestore).
 */
async function prune(
  store: Store,
  events: EventBus,
  where: Where<RevisionRow>,
  order: 'id' | 'version',
): Promise<number> {
  let removed = 0;
  for (;;) {
    const count = await store.transaction(async (tx) => {
      const page = await tx
        .table(revisionsTable)
        .find({ where, orderBy: [[order, 'asc']], limit: PAGE });
      await dropRevisions(tx, events, page);
      await tallyRevisions(tx, page, -1);
      return page.length;
    });
    removed += count;
    if (count < PAGE) return removed;
  }
}

/** Prunes one tenant's revisions; `since` bounds which revisions are looked at for the count rule. */
export async function pruneRevisions(
  store: Store,
  events: EventBus,
  history: HistoryConfig,
  now: Date,
  since: Date,
): Promise<number> {
  const revisions = store.table(revisionsTable);
  let removed = 0;
  if (history.keepDays > 0) {
    const cutoff = now.getTime() - history.keepDays * DAY_MS;
    // Revision ids begin with their time: older ones are a range of the primary key.
    removed += await prune(store, events, { id: { lt: timeIdPrefix(cutoff) } }, 'id');
    // What can no longer be restored leaves the trash.
    await store.table(trashTable).deleteWhere({ at: { lt: new Date(cutoff).toISOString() } });
  }
  // The newest version of each record written since `since`, where it exceeds the limit.
  const newest = new Map<string, number>();
  let after: Pick<RevisionRow, 'id'> | undefined;
  for (;;) {
    const page = await revisions.find({
      where: { id: { gte: timeIdPrefix(since.getTime()) } },
      orderBy: [['id', 'asc']],
      limit: PAGE,
      ...(after ? { after } : {}),
    });
    for (const row of page)
      if (row.version > history.maxRevisionsPerRecord)
        newest.set(row.recordId, Math.max(newest.get(row.recordId) ?? 0, row.version));
    if (page.length < PAGE) break;
    after = { id: page[page.length - 1]!.id };
  }
  for (const [recordId, version] of newest)
    removed += await prune(
      store,
      events,
      { recordId, version: { lte: version - history.maxRevisionsPerRecord } },
      'version',
    );
  return removed;
}

type Context = Pick<
  PluginContext<unknown>,
  'hubConfig' | 'identity' | 'storage' | 'clock' | 'log' | 'events'
>;

export function startPruning(ctx: Context): { stop(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  let since = new Date(0);
  const history = () => ctx.hubConfig().history;

  async function run(): Promise<void> {
    const started = ctx.clock.now();
    try {
      for (const tenant of await ctx.identity.tenants.list()) {
        if (stopped) return;
        await pruneRevisions(ctx.storage(tenant.id), ctx.events, history(), started, since);
      }
      // A revision written while this run read may be missed by it: the next run looks again.
      since = new Date(started.getTime() - 60_000);
    } catch (error) {
      ctx.log.warn('Pruning revisions failed; trying again at the next run', { error });
    }
  }

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      void run().finally(schedule);
    }, history().pruneIntervalSeconds * 1000);
    timer.unref?.();
  }
  schedule();
  return {
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
