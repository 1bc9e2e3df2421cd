/**
 * The contract's `where`, `orderBy` and keyset `after` on Firestore: as Firestore queries (with
 * `in` lists split to Firestore's limit), and the same semantics in memory, which a transaction
 * needs to lay its own pending writes over what it reads.
 */
import type { Query, WhereFilterOp } from '@google-cloud/firestore';
import type { FindOptions, OrderBy, Where } from '../contract.ts';
import { docId, hasNul, TENANT_FIELD, type DocCodec } from './codec.ts';

/** Firestore allows at most 30 values in one `in` filter (30 disjunctions per query). */
export const IN_LIMIT = 30;

const OPERATORS = { ne: '!=', gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;
type Row = Record<string, unknown>;

interface Plan {
  filters: [string, WhereFilterOp, unknown][];
  ins: [string, unknown[]][];
}

function operatorOf(value: unknown): [string, unknown] | null {
  if (value === null || typeof value !== 'object' || value instanceof Date || Array.isArray(value))
    return null;
  const keys = Object.keys(value);
  if (keys.length !== 1 || !(keys[0] === 'in' || Object.hasOwn(OPERATORS, keys[0]!))) return null;
  return [keys[0]!, (value as Row)[keys[0]!]];
}

/** The filters of a `where`, or null when it can match nothing (a NUL value, an empty `in`). */
function plan(
  codec: DocCodec,
  tenantId: string | null,
  where: Where<any> | undefined,
): Plan | null {
  const out: Plan = { filters: [], ins: [] };
  if (tenantId !== null && codec.table.tenantScoped)
    out.filters.push([TENANT_FIELD, '==', tenantId]);
  for (const [name, value] of Object.entries(where ?? {})) {
    if (value === undefined) continue;
    if (name === TENANT_FIELD && tenantId === null) {
      out.filters.push([TENANT_FIELD, '==', value]);
      continue;
    }
    codec.spec(name);
    const op = operatorOf(value);
    if (!op) {
      // No stored value holds a NUL (the codec refuses them), so such a lookup matches nothing.
      if (hasNul(value)) return null;
      out.filters.push([name, '==', value === null ? null : codec.encode(name, value)]);
      continue;
    }
    const [key, operand] = op;
    if (key === 'in') {
      const list = [...new Set((operand as unknown[]).filter((item) => !hasNul(item)))];
      if (list.length === 0) return null;
      out.ins.push([name, list.map((item) => codec.encode(name, item))]);
    } else if (operand === null || (key === 'ne' && hasNul(operand))) {
      if (key !== 'ne') throw new TypeError(`"${key}: null" is not a valid condition on ${name}`);
      out.filters.push([name, '!=', null]);
    } else {
      out.filters.push([
        name,
        OPERATORS[key as keyof typeof OPERATORS],
        codec.encode(name, operand),
      ]);
    }
  }
  return out;
}

function chunks<T>(list: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

/**
 * The Firestore queries whose union is the answer (one, unless an `in` list is longer than
 * Firestore allows); an empty list when nothing can match. Each carries orderBy, cursor and limit,
 * so merging them is a sort and a cut.
 */
export function buildQueries(
  base: Query,
  codec: DocCodec,
  tenantId: string | null,
  options: FindOptions<any>,
): Query[] {
  const parts = plan(codec, tenantId, options.where);
  if (!parts) return [];
  let query = base;
  for (const [field, op, value] of parts.filters) query = query.where(field, op, value);
  // The first `in` list is split into chunks of 30; any further list goes one value at a time, so
  // no query ever holds more than 30 disjunctions.
  let variants: Query[] = [query];
  parts.ins.forEach(([field, values], index) => {
    const groups = chunks(values, index === 0 ? IN_LIMIT : 1);
    variants = variants.flatMap((q) =>
      groups.map((group) =>
        group.length === 1 ? q.where(field, '==', group[0]) : q.where(field, 'in', group),
      ),
    );
  });
  const order = options.orderBy ?? [];
  return variants.map((q) => {
    for (const [column, direction] of order) q = q.orderBy(column, direction);
    if (options.after && order.length > 0) {
      q = q.startAfter(
        ...order.map(([column]) => {
          if (!(column in options.after!))
            throw new TypeError(`Cursor has no value for "${column}"`);
          return codec.encode(column, options.after![column]);
        }),
      );
    }
    return options.limit === undefined ? q : q.limit(options.limit);
  });
}

/** Firestore's order: null first, then by value; strings by code point (UTF-8 byte order). */
export function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return -1;
  if (b === null || b === undefined) return 1;
  if (typeof a === 'string' && typeof b === 'string') {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const x = a.charCodeAt(i);
      const y = b.charCodeAt(i);
      // Surrogates (astral code points) sort after U+E000–U+FFFF, as their code points do.
      if (x !== y)
        return (
          (x >= 0xd800 ? (x >= 0xe000 ? x - 0x800 : x + 0x2000) : x) -
          (y >= 0xd800 ? (y >= 0xe000 ? y - 0x800 : y + 0x2000) : y)
        );
    }
    return a.length - b.length;
  }
  return (a as number) < (b as number) ? -1 : 1;
}

/** A value as it compares: timestamps by instant, everything else as it is. */
function comparable(codec: DocCodec, column: string, value: unknown): unknown {
  if (value === null || value === undefined || column === TENANT_FIELD) return value ?? null;
  return codec.spec(column).kind === 'timestamp' ? new Date(String(value)).getTime() : value;
}

/** Whether a decoded row (with `tenantId`) satisfies the tenant binding and `where`, like SQL would. */
export function matchesWhere(
  codec: DocCodec,
  row: Row,
  tenantId: string | null,
  where: Where<any> | undefined,
): boolean {
  if (tenantId !== null && codec.table.tenantScoped && row[TENANT_FIELD] !== tenantId) return false;
  for (const [name, value] of Object.entries(where ?? {})) {
    if (value === undefined) continue;
    const actual = comparable(codec, name, row[name]);
    const op = operatorOf(value);
    if (!op) {
      if (
        value === null
          ? actual !== null
          : actual === null || compareValues(actual, comparable(codec, name, value)) !== 0
      )
        return false;
      continue;
    }
    const [key, operand] = op;
    if (actual === null) return false;
    if (key === 'in') {
      if (
        !(operand as unknown[]).some(
          (item) => compareValues(actual, comparable(codec, name, item)) === 0,
        )
      )
        return false;
      continue;
    }
    if (operand === null) continue;
    const c = compareValues(actual, comparable(codec, name, operand));
    const ok =
      key === 'ne'
        ? c !== 0
        : key === 'gt'
          ? c > 0
          : key === 'gte'
            ? c >= 0
            : key === 'lt'
              ? c < 0
              : c <= 0;
    if (!ok) return false;
  }
  return true;
}

/** Sorts rows the way the Firestore query would: by `orderBy`, then by document id. */
export function compareRows(
  codec: DocCodec,
  orderBy: OrderBy<any> | undefined,
): (a: Row, b: Row) => number {
  return (a, b) => {
    for (const [column, direction] of orderBy ?? []) {
      const c = compareValues(
        comparable(codec, column, a[column]),
        comparable(codec, column, b[column]),
      );
      if (c !== 0) return direction === 'desc' ? -c : c;
    }
    return compareValues(docId(String(a.id)), docId(String(b.id)));
  };
}

/** Whether a row lies strictly after the keyset cursor. */
export function isAfterCursor(codec: DocCodec, row: Row, options: FindOptions<any>): boolean {
  const order = options.orderBy ?? [];
  if (!options.after || order.length === 0) return true;
  for (const [column, direction] of order) {
    const c = compareValues(
      comparable(codec, column, row[column]),
      comparable(codec, column, (options.after as Row)[column]),
    );
    if (c !== 0) return direction === 'desc' ? c < 0 : c > 0;
  }
  return false;
}
