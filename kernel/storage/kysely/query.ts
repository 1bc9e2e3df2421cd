/** Compiling the contract's `where`, `orderBy` and keyset `after` into Kysely expressions. */
import { sql, type ExpressionBuilder, type Expression, type SqlBool } from 'kysely';
import type { FindOptions, Where } from '../contract.ts';
import type { TableCodec } from './codec.ts';
import { hasNul, TENANT_COLUMN } from './codec.ts';

type Eb = ExpressionBuilder<any, any>;
const OPERATORS = { ne: '<>', gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

function isOperator(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || value instanceof Date || Array.isArray(value))
    return false;
  const keys = Object.keys(value);
  return keys.length === 1 && (keys[0] === 'in' || Object.hasOwn(OPERATORS, keys[0]!));
}

function condition(eb: Eb, codec: TableCodec, name: string, value: unknown): Expression<SqlBool> {
  const column = codec.column(name);
  if (value === null) return eb(column, 'is', null);
  // No stored value holds a NUL (the codec refuses them), so a lookup by one matches nothing;
  // answering that here keeps such ids (from a URL, say) from ever reaching the database.
  if (!isOperator(value))
    return hasNul(value) ? sql<SqlBool>`1 = 0` : eb(column, '=', codec.encode(name, value));
  const [op, operand] = Object.entries(value)[0]!;
  if (op === 'in') {
    const list = (operand as unknown[]).filter((item) => !hasNul(item));
    if (list.length === 0) return sql<SqlBool>`1 = 0`;
    return eb(
      column,
      'in',
      list.map((item) => codec.encode(name, item)),
    );
  }
  if (operand === null || (op === 'ne' && hasNul(operand))) {
    if (op === 'ne') return eb(column, 'is not', null);
    throw new TypeError(`"${op}: null" is not a valid condition on ${name}`);
  }
  return eb(column, OPERATORS[op as keyof typeof OPERATORS], codec.encode(name, operand));
}

/** The WHERE expression: the tenant filter (when bound) AND every condition. */
export function whereExpression(
  eb: Eb,
  codec: TableCodec,
  tenantId: string | null,
  where: Where<any> | undefined,
): Expression<SqlBool> {
  const parts: Expression<SqlBool>[] = [];
  if (tenantId !== null && codec.table.tenantScoped) parts.push(eb(TENANT_COLUMN, '=', tenantId));
  for (const [name, value] of Object.entries(where ?? {})) {
    if (value === undefined) continue;
    if (name === 'tenantId' && tenantId === null) {
      parts.push(eb(TENANT_COLUMN, '=', value as string));
      continue;
    }
    parts.push(condition(eb, codec, name, value));
  }
  return parts.length === 0 ? sql<SqlBool>`1 = 1` : eb.and(parts);
}

/**
 * Rows strictly after the cursor in `orderBy` order:
 * (a > x) OR (a = x AND b > y) OR …, with `<` for descending columns.
 */
export function afterExpression(
  eb: Eb,
  codec: TableCodec,
  options: FindOptions<any>,
): Expression<SqlBool> | null {
  const after = options.after;
  const order = options.orderBy ?? [];
  if (!after || order.length === 0) return null;
  const branches: Expression<SqlBool>[] = [];
  for (let i = 0; i < order.length; i++) {
    const parts: Expression<SqlBool>[] = [];
    for (let j = 0; j < i; j++) {
      const [name] = order[j]!;
      parts.push(eb(codec.column(name), '=', codec.encode(name, after[name])));
    }
    const [name, direction] = order[i]!;
    if (!(name in after)) throw new TypeError(`Cursor has no value for "${name}"`);
    parts.push(
      eb(codec.column(name), direction === 'desc' ? '<' : '>', codec.encode(name, after[name])),
    );
    branches.push(eb.and(parts));
  }
  return eb.or(branches);
}
