/** What moving a folder or an item writes once its new position is planned. */
import type { UserRow } from '../../../kernel/identity/tables.ts';
import type { Store, TableApi } from '../../../kernel/storage/contract.ts';
import { touched } from '../attribution.ts';
import type { EntityDeps } from '../deps.ts';
import { recordChange, type VersionedRow } from '../history/record.ts';
import type { HistoryKind } from '../kinds/index.ts';
import { writeChanges } from '../ordering.ts';

/**
 * Writes a planned move of `row` (the sortOrder `patches` of both containers): when the row left
 * its container (`left`) or took a new position, it also gets `placement` (its new container
 * column), the mover's attribution and the next version, and a `moved` revision is recorded.
 * Returns the row as it is now.
 */
export async function stampMoved<Row extends VersionedRow>(
  tx: Store,
  deps: EntityDeps,
  move: {
    kind: HistoryKind;
    table: TableApi<Row>;
    row: Row;
    patches: Map<string, Partial<Row>>;
    placement: Partial<Row>;
    left: boolean;
    user: UserRow;
  },
): Promise<Row> {
  const { kind, table, row, patches, placement, user } = move;
  const now = deps.clock.iso();
  const changed = move.left || patches.has(row.id);
  if (changed) {
    patches.set(row.id, {
      ...patches.get(row.id),
      ...placement,
      ...touched(user, now),
      version: row.version + 1,
    });
  }
  await writeChanges(table, patches);
  const moved = { ...row, ...patches.get(row.id) };
  if (changed)
    await recordChange(tx, deps, { kind, row: moved, action: 'moved', actorId: user.id, at: now });
  return moved;
}
