/**
 * Sibling order for folders, requests, documents and snippets. Siblings are sorted by `sortOrder`,
 * then name, then id, so a tie (two rows created at the same moment) still has one stable order.
 * Reorders and moves are planned here as pure functions and written by the caller in one
 * transaction.
 */
import { badRequest, notFound } from '../../kernel/errors.ts';
import type { TableApi } from '../../kernel/storage/contract.ts';

export interface Sortable {
  id: string;
  name: string;
  sortOrder: number;
}

// Names are compared here rather than by the database, whose collations differ between drivers
// (case-insensitive on MySQL, locale-dependent on PostgreSQL): every driver lists in one order.
const collator = new Intl.Collator('en', { numeric: true });
const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Orders by name for people ("Item 2" before "Item 10", case-insensitive first), then by id. */
export function compareNames(
  a: { name: string; id: string },
  b: { name: string; id: string },
): number {
  return collator.compare(a.name, b.name) || byCodeUnits(a.name, b.name) || byCodeUnits(a.id, b.id);
}

export function compareSiblings(a: Sortable, b: Sortable): number {
  return a.sortOrder - b.sortOrder || compareNames(a, b);
}

export function sortSiblings<T extends Sortable>(rows: readonly T[]): T[] {
  return [...rows].sort(compareSiblings);
}

/** The sortOrder a new last sibling gets: one more than the largest, or 0 for the first. */
export function nextSortOrder(siblings: readonly Pick<Sortable, 'sortOrder'>[]): number {
  return siblings.reduce((max, row) => Math.max(max, row.sortOrder + 1), 0);
}

/** How a reorder tells ids of the collection (in another container) from ids it does not hold. */
export interface ReorderScope {
  /** Ids of rows of this kind anywhere in the collection. */
  inCollection: ReadonlySet<string>;
  /** The 404 message for an id the collection does not hold, e.g. `Folder not found`. */
  notFound: string;
}

/**
 * The full new order of a container after a reorder: the listed ids first, in the given order,
 * then any sibling the client did not list, in its current order (so a sibling created while the
 * client was dragging is kept, not lost). An id listed twice, or one of the collection that sits
 * in another container, is a 400 naming the field; an id the collection does not hold (unknown,
 * or in another collection) is a 404, as for any entity that is not there.
 */
export function planReorder(
  siblings: readonly Sortable[],
  orderedIds: readonly string[],
  field: string,
  scope: ReorderScope,
): string[] {
  const known = new Set(siblings.map((row) => row.id));
  const seen = new Set<string>();
  for (const id of orderedIds) {
    if (seen.has(id)) throw badRequest(`${field}: ${id} is listed more than once.`);
    if (!known.has(id)) {
      if (!scope.inCollection.has(id)) throw notFound(`${scope.notFound}: ${id}`);
      throw badRequest(`${field}: ${id} is not in this folder.`);
    }
    seen.add(id);
  }
  const rest = sortSiblings(siblings)
    .filter((row) => !seen.has(row.id))
    .map((row) => row.id);
  return [...orderedIds, ...rest];
}

/** `ids` with `id` removed and re-inserted at `index` (clamped to the ends). */
export function placeAt(ids: readonly string[], id: string, index: number): string[] {
  const rest = ids.filter((other) => other !== id);
  const at = Math.max(0, Math.min(index, rest.length));
  return [...rest.slice(0, at), id, ...rest.slice(at)];
}

/**
 * sortOrder changes for moving `item` to position `index` of another container, re-indexing both
 * containers (the one it leaves closes its gap). `destination` is null for a move within the same
 * container; then an omitted index leaves everything where it is, while into another container it
 * means "last".
 */
export function planMove(
  item: Sortable,
  source: readonly Sortable[],
  destination: readonly Sortable[] | null,
  index?: number,
): Map<string, number> {
  if (destination === null) {
    if (index === undefined) return new Map();
    return renumber(
      placeAt(
        sortSiblings(source).map((row) => row.id),
        item.id,
        index,
      ),
    );
  }
  const left = sortSiblings(source.filter((row) => row.id !== item.id));
  const arrived = sortSiblings(destination.filter((row) => row.id !== item.id));
  const order = placeAt(
    arrived.map((row) => row.id),
    item.id,
    index ?? arrived.length,
  );
  return new Map([...renumber(left.map((row) => row.id)), ...renumber(order)]);
}

/**
 * The sortOrder of every row in `order`: 0..n-1. Every sibling is written, not only the ones that
 * moved: when two reorders of one container race, the later one then overwrites the whole
 * container and the result is exactly its order, never a mix of both with duplicate positions.
 */
export function renumber(order: readonly string[]): Map<string, number> {
  return new Map(order.map((id, index) => [id, index]));
}

/**
 * Writes planned changes (sortOrder plus any extra columns per id). Rows are written in id order
 * so that two concurrent reorders lock rows in the same sequence and cannot deadlock each other.
 */
export async function writeChanges<Row extends { id: string }>(
  table: TableApi<Row>,
  changes: Map<string, Partial<Omit<Row, 'id'>>>,
): Promise<void> {
  for (const id of [...changes.keys()].sort()) await table.update(id, changes.get(id)!);
}

/** Merges sortOrder changes into a per-row patch map. */
export function addSortOrders<Row>(
  patches: Map<string, Partial<Row>>,
  orders: Map<string, number>,
): void {
  for (const [id, sortOrder] of orders)
    patches.set(id, { ...patches.get(id), sortOrder } as unknown as Partial<Row>);
}
