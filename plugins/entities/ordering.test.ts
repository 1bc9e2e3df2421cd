import { describe, expect, it } from 'vitest';
import {
  compareNames,
  nextSortOrder,
  placeAt,
  planMove,
  planReorder,
  renumber,
  sortSiblings,
} from './ordering.ts';

const row = (id: string, sortOrder: number, name = id) => ({ id, sortOrder, name });

describe('sibling ordering', () => {
  it('sorts by sortOrder, then name for people, then id', () => {
    const rows = [
      row('c', 1, 'Item 10'),
      row('a', 1, 'Item 2'),
      row('b', 0, 'zeta'),
      row('e', 1, 'Item 2'),
      row('d', 1, 'Apple'),
    ];
    expect(sortSiblings(rows).map((r) => r.id)).toEqual(['b', 'd', 'a', 'e', 'c']);
  });

  it('compares names case-insensitively before falling back to exact text and id', () => {
    expect(compareNames({ name: 'alpha', id: '2' }, { name: 'Beta', id: '1' })).toBeLessThan(0);
    expect(compareNames({ name: 'same', id: '1' }, { name: 'same', id: '2' })).toBeLessThan(0);
  });

  it('gives a new sibling one more than the largest sortOrder, or 0 in an empty container', () => {
    expect(nextSortOrder([])).toBe(0);
    expect(nextSortOrder([row('a', 3), row('b', 7), row('c', 0)])).toBe(8);
  });
});

describe('planReorder', () => {
  const siblings = [row('a', 0), row('b', 1), row('c', 2), row('d', 3)];

  const scope = { inCollection: new Set(['a', 'b', 'c', 'd', 'e']), notFound: 'Request not found' };

  it('puts listed ids first and keeps unlisted siblings after them in their current order', () => {
    expect(planReorder(siblings, ['c', 'a'], 'ids', scope)).toEqual(['c', 'a', 'b', 'd']);
  });

  it('rejects an id of the collection that is not a sibling with a 400 naming the field', () => {
    expect(() => planReorder(siblings, ['a', 'e'], 'orderedRequestIds', scope)).toThrow(
      expect.objectContaining({
        status: 400,
        message: 'orderedRequestIds: e is not in this folder.',
      }),
    );
  });

  it('rejects an id the collection does not hold with a 404', () => {
    expect(() => planReorder(siblings, ['a', 'x'], 'orderedRequestIds', scope)).toThrow(
      expect.objectContaining({ status: 404, message: 'Request not found: x' }),
    );
  });

  it('rejects an id listed twice', () => {
    expect(() => planReorder(siblings, ['a', 'b', 'a'], 'ids', scope)).toThrow(
      'ids: a is listed more than once.',
    );
  });
});

describe('renumber and placeAt', () => {
  it('numbers every row of the new order from 0, so a racing reorder overwrites the whole container', () => {
    expect([...renumber(['c', 'a', 'b'])]).toEqual([
      ['c', 0],
      ['a', 1],
      ['b', 2],
    ]);
  });

  it('clamps the insertion index to the ends of the list', () => {
    expect(placeAt(['a', 'b'], 'x', 99)).toEqual(['a', 'b', 'x']);
    expect(placeAt(['a', 'b', 'x'], 'x', 0)).toEqual(['x', 'a', 'b']);
  });
});

describe('planMove', () => {
  it('re-indexes both containers when an item moves to another one', () => {
    const item = row('m', 1);
    const source = [row('a', 0), item, row('b', 2)];
    const destination = [row('x', 0), row('y', 1)];
    const changes = planMove(item, source, destination, 0);
    expect(Object.fromEntries(changes)).toEqual({ a: 0, b: 1, m: 0, x: 1, y: 2 });
  });

  it('appends to the other container when no index is given', () => {
    const item = row('m', 0);
    expect(Object.fromEntries(planMove(item, [item], [row('x', 0)]))).toEqual({ x: 0, m: 1 });
  });

  it('changes nothing within the same container when no index is given', () => {
    const item = row('m', 0);
    expect(planMove(item, [item, row('a', 1)], null).size).toBe(0);
  });

  it('moves within the same container to the given index', () => {
    const item = row('m', 0);
    expect(Object.fromEntries(planMove(item, [item, row('a', 1), row('b', 2)], null, 2))).toEqual({
      a: 0,
      b: 1,
      m: 2,
    });
  });
});
