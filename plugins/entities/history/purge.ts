/**
 * Purging a record's history, for the day a secret leaks into it: every revision of the record
 * goes (its audit events stay, as for pruning: names and who, never the content), and a deleted
 * record leaves the trash for good, with what its deletion removed (a folder's subtree, a
 * collection's contents), since that could only come back with it. The live record stays as it
 * is; its next change starts its history again. Audited as `history.purged`. Shared by
 * `DELETE /admin/<kind>/:id/revisions` and `workspace-hub history purge`.
 */
import { notFound } from '../../../kernel/errors.ts';
import type { AuditSink } from '../../../kernel/audit.ts';
import type { EventBus } from '../../../kernel/events.ts';
import type { Store } from '../../../kernel/storage/contract.ts';
import { dropRevisions } from './removal.ts';
import { tallyRevisions } from './usage.ts';
import type { HistorySubject } from './subjects.ts';
import { revisionsTable, trashTable } from './tables.ts';

const PAGE = 500;

export interface PurgeDeps {
  events: EventBus;
  audit: AuditSink;
}

/**
 * Purges the history of record `id` of `subject`'s kind; resolves with the number of revisions
 * removed, or throws 404 when the record neither exists nor has history. Each page of revisions
 * goes in a transaction of its own (a large collection's contents may be many), so a purge that
 * fails midway removed some and can simply be run again.
 */
export async function purgeHistory(
  store: Store,
  deps: PurgeDeps,
  subject: Pick<HistorySubject, 'name' | 'table' | 'notFound'>,
  id: string,
): Promise<{ purged: number }> {
  const live = (await store.table(subject.table).get(id)) as { name?: unknown } | null;
  const [latest] = await store.table(revisionsTable).find({
    where: { recordId: id },
    orderBy: [['version', 'desc']],
    limit: 1,
  });
  if (latest && latest.kind !== subject.name) throw notFound(subject.notFound);
  if (!live && !latest) throw notFound(subject.notFound);
  const name = String(live?.name ?? latest?.snapshot['name'] ?? '');
  // A deleted folder or collection took records with it: they leave the trash with it.
  const taken = live ? [] : await store.table(trashTable).find({ where: { cause: id } });
  const records = [id, ...taken.map((row) => row.id)];
  let purged = 0;
  for (let i = 0; i < records.length; i += PAGE) {
    const chunk = records.slice(i, i + PAGE);
    for (;;) {
      const count = await store.transaction(async (tx) => {
        // A live record's row first, as its edits take it: an edit that removes its oldest
        // revision (maxRevisionsPerRecord) is then never removing what this page reads.
        if (live) await tx.table(subject.table).getForUpdate(id);
        const page = await tx.table(revisionsTable).find({
          where: { recordId: { in: chunk } },
          orderBy: [['id', 'asc']],
          limit: PAGE,
        });
        await dropRevisions(tx, deps.events, page);
        await tallyRevisions(tx, page, -1);
        return page.length;
      });
      purged += count;
      if (count < PAGE) break;
    }
  }
  await store.transaction(async (tx) => {
    for (let i = 0; i < records.length; i += PAGE)
      await tx.table(trashTable).deleteWhere({ id: { in: records.slice(i, i + PAGE) } });
    await deps.audit.record(tx, {
      action: 'history.purged',
      target: { kind: subject.name, id, name },
      details: { revisions: purged, ...(taken.length > 0 ? { records: records.length } : {}) },
    });
  });
  return { purged };
}
