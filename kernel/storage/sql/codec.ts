/**
 * Converts rows between the storage API (camelCase, ISO timestamps, parsed JSON) and SQL values
 * (snake_case columns, `Date`s, serialized JSON). One place, so every query path agrees.
 */
import { StorageError } from '../contract.ts';
import { toSnakeCase, type ColumnSpec, type Table } from '../table.ts';

/** The row property and SQL column that carry the tenant on tenant-scoped tables. */
export const TENANT_PROP = 'tenantId';
export const TENANT_COLUMN = 'tenant_id';

export interface ColumnMeta {
  /** camelCase name used in rows. */
  readonly prop: string;
  /** snake_case name used in SQL. */
  readonly column: string;
  readonly spec: ColumnSpec;
}

/** A table declaration with its SQL names worked out once. */
export interface TableMeta {
  readonly table: Table;
  readonly name: string;
  readonly tenantScoped: boolean;
  readonly columns: readonly ColumnMeta[];
  readonly byProp: ReadonlyMap<string, ColumnMeta>;
}

/** The tenant column, described like any other so where/orderBy can use it on unscoped stores. */
export const TENANT_META: ColumnMeta = {
  prop: TENANT_PROP,
  column: TENANT_COLUMN,
  spec: { kind: 'id', nullable: false, maxLength: 128 },
};

const metaCache = new WeakMap<Table, TableMeta>();

/** Metadata of a table declaration, cached per declaration object. */
export function tableMeta(table: Table): TableMeta {
  let meta = metaCache.get(table);
  if (!meta) {
    const columns = Object.entries(table.columns).map(([prop, spec]) => ({ prop, column: toSnakeCase(prop), spec }));
    meta = {
      table,
      name: table.name,
      tenantScoped: table.tenantScoped,
      columns,
      byProp: new Map(columns.map((c) => [c.prop, c])),
    };
    metaCache.set(table, meta);
  }
  return meta;
}

function invalid(meta: TableMeta, message: string): StorageError {
  return new StorageError('invalid', message, { table: meta.name });
}

/** Converts one API value to its SQL parameter; throws an `invalid` StorageError on a wrong type. */
export function encodeValue(meta: TableMeta, column: ColumnMeta, value: unknown): unknown {
  const where = `"${meta.name}.${column.prop}"`;
  if (value === null || value === undefined) {
    if (!column.spec.nullable) throw invalid(meta, `${where} must not be null`);
    return null;
  }
  switch (column.spec.kind) {
    case 'id':
    case 'string':
    case 'text':
      if (typeof value !== 'string') throw invalid(meta, `${where} must be a string`);
      if (column.spec.maxLength !== undefined && value.length > column.spec.maxLength) {
        throw invalid(meta, `${where} is longer than ${column.spec.maxLength} characters`);
      }
      return value;
    case 'int':
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw invalid(meta, `${where} must be an integer`);
      return value;
    case 'bool':
      if (typeof value !== 'boolean') throw invalid(meta, `${where} must be a boolean`);
      return value;
    case 'json':
      return JSON.stringify(value);
    case 'timestamp': {
      const date = value instanceof Date ? value : typeof value === 'string' ? new Date(value) : null;
      if (!date || Number.isNaN(date.getTime())) throw invalid(meta, `${where} must be an ISO 8601 timestamp`);
      return date;
    }
  }
}

/** Converts one SQL value back to its API form (numbers, booleans, ISO strings, parsed JSON). */
export function decodeValue(spec: ColumnSpec, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (spec.kind) {
    case 'int':
      // pg returns BIGINT as a string so it cannot lose precision; our ints are safe integers.
      return Number(value);
    case 'bool':
      // MySQL has no boolean type: TINYINT(1) comes back as 0/1.
      return value === true || value === 1 || value === '1';
    case 'json':
      return typeof value === 'string' ? JSON.parse(value) : value;
    case 'timestamp':
      return (value instanceof Date ? value : new Date(String(value))).toISOString();
    default:
      return value;
  }
}

export interface EncodeRowOptions {
  /** The tenant to write, or null when the row must carry `tenantId` itself (unscoped store). */
  readonly tenantId: string | null;
}

/**
 * A complete row → SQL values for INSERT. Every declared column must be present (nullable ones may
 * be missing and become null); unknown properties are rejected so typos do not vanish silently.
 */
export function encodeRow(meta: TableMeta, row: Record<string, unknown>, options: EncodeRowOptions): Record<string, unknown> {
  if (row === null || typeof row !== 'object') throw invalid(meta, `A row of "${meta.name}" must be an object`);
  const out: Record<string, unknown> = {};
  for (const column of meta.columns) out[column.column] = encodeValue(meta, column, row[column.prop]);
  for (const key of Object.keys(row)) {
    if (meta.byProp.has(key)) continue;
    // An unscoped store writes tenant rows on the caller's say-so: the row names its tenant.
    if (key === TENANT_PROP && meta.tenantScoped && options.tenantId === null) continue;
    if (row[key] !== undefined) throw invalid(meta, `"${meta.name}" has no column "${key}"`);
  }
  if (meta.tenantScoped) {
    const tenant = options.tenantId ?? row[TENANT_PROP];
    if (typeof tenant !== 'string' || tenant === '') {
      throw invalid(meta, `A row of "${meta.name}" written through the unscoped store needs a tenantId`);
    }
    out[TENANT_COLUMN] = encodeValue(meta, TENANT_META, tenant);
  }
  return out;
}

/** A partial patch → SQL values for UPDATE. The id and the tenant never change. */
export function encodePatch(meta: TableMeta, patch: Record<string, unknown>): Record<string, unknown> {
  if (patch === null || typeof patch !== 'object') throw invalid(meta, `A patch of "${meta.name}" must be an object`);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (key === 'id' || key === TENANT_PROP) throw invalid(meta, `"${meta.name}.${key}" cannot be changed`);
    const column = meta.byProp.get(key);
    if (!column) throw invalid(meta, `"${meta.name}" has no column "${key}"`);
    out[column.column] = encodeValue(meta, column, value);
  }
  return out;
}

/** SQL row → API row; `withTenant` adds `tenantId` (unscoped reads of tenant-scoped tables). */
export function decodeRow(meta: TableMeta, raw: Record<string, unknown>, withTenant: boolean): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const column of meta.columns) row[column.prop] = decodeValue(column.spec, raw[column.column]);
  if (withTenant) row[TENANT_PROP] = raw[TENANT_COLUMN];
  return row;
}

/** The SQL columns to select: declared ones (not `*`, so a newer schema's extra columns are ignored). */
export function selectColumns(meta: TableMeta, withTenant: boolean): string[] {
  const names = meta.columns.map((c) => c.column);
  if (withTenant) names.push(TENANT_COLUMN);
  return names;
}
