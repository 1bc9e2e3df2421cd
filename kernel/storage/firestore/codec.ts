/**
 * Converting rows between the contract's shape (ISO timestamps, parsed JSON) and Firestore
 * documents (Timestamp values, JSON kept as text), and naming collections and documents.
 *
 * A document holds every declared column under its camelCase name, plus `tenantId` on
 * tenant-scoped tables. The row id is both the document id (escaped when Firestore would refuse it)
 * and an `id` field, so queries can filter and order on it like any column.
 */
import { Buffer } from 'node:buffer';
import { Timestamp, type DocumentData } from '@google-cloud/firestore';
import { StorageError } from '../contract.ts';
import type { ColumnSpec, Table } from '../table.ts';

export const TENANT_FIELD = 'tenantId';

type Row = Record<string, unknown>;

/** PostgreSQL cannot hold a NUL character, so no driver accepts one (one rule everywhere). */
export function hasNul(value: unknown): boolean {
  return typeof value === 'string' && value.includes('\u0000');
}

/** `api_tokens` → `apiTokens`: the collection names the existing hub's Firestore layout uses. */
export function collectionName(table: string): string {
  return table.replace(/_([a-z0-9])/g, (_, ch: string) => ch.toUpperCase());
}

const PLAIN_ID = /^[A-Za-z0-9_-]{1,700}$/;

/**
 * A document id for a row id. Firestore refuses `/`, `.`/`..` and `__x__` ids, so anything other
 * than letters, digits, `-` and `_` is base64url-encoded behind a `~`, which no plain id contains.
 */
export function docId(id: string): string {
  if (PLAIN_ID.test(id) && !/^__.*__$/.test(id)) return id;
  return `~${Buffer.from(id, 'utf8').toString('base64url')}`;
}

export function encodeValue(spec: ColumnSpec, value: unknown, column = 'value'): unknown {
  if (hasNul(value))
    throw new StorageError('invalid', `${column}: must not contain the NUL character.`);
  // JSON is kept as text: Firestore maps refuse nested arrays and some keys that JSON allows.
  if (spec.kind === 'json') return JSON.stringify(value ?? null);
  if (value === null || value === undefined) return null;
  switch (spec.kind) {
    case 'timestamp': {
      const date = value instanceof Date ? value : new Date(String(value));
      if (Number.isNaN(date.getTime())) throw new TypeError(`Invalid timestamp: ${String(value)}`);
      return Timestamp.fromMillis(date.getTime());
    }
    case 'bool':
      return Boolean(value);
    case 'int':
      return Number(value);
    default:
      return value;
  }
}

export function decodeValue(spec: ColumnSpec, value: unknown): unknown {
  if (value === null || value === undefined) return spec.kind === 'json' ? null : (value ?? null);
  switch (spec.kind) {
    case 'json':
      return typeof value === 'string' ? JSON.parse(value) : value;
    case 'timestamp':
      return value instanceof Timestamp
        ? new Date(value.toMillis()).toISOString()
        : new Date(String(value)).toISOString();
    case 'int':
      return Number(value);
    default:
      return value;
  }
}

/** Conversion and naming for one table. */
export interface DocCodec {
  readonly table: Table;
  readonly collection: string;
  spec(column: string): ColumnSpec;
  encode(column: string, value: unknown): unknown;
  /** A whole document for a complete row; `tenantId` is added on tenant-scoped tables. */
  encodeRow(row: Row, tenantId: string | null): DocumentData;
  /** The contract row; `tenantId` is included only for the unscoped store. */
  decodeDoc(data: DocumentData, withTenant: boolean): Row;
}

const codecs = new WeakMap<Table, DocCodec>();

/** Collections of tables outside the change feed (`changeFeed: false`): their writes count nothing. */
export const UNCOUNTED_COLLECTIONS = new Set<string>();

export function codecFor(table: Table): DocCodec {
  const cached = codecs.get(table);
  if (cached) return cached;
  if (!table.changeFeed) UNCOUNTED_COLLECTIONS.add(collectionName(table.name));
  const names = Object.keys(table.columns);
  const spec = (name: string): ColumnSpec => {
    const found = table.columns[name];
    if (!found) throw new TypeError(`Unknown column "${table.name}.${name}"`);
    return found;
  };
  const codec: DocCodec = {
    table,
    collection: collectionName(table.name),
    spec,
    encode: (name, value) => encodeValue(spec(name), value, name),
    encodeRow(row, tenantId) {
      const out: DocumentData = {};
      for (const name of names) out[name] = encodeValue(spec(name), row[name], name);
      if (table.tenantScoped) out[TENANT_FIELD] = tenantId;
      return out;
    },
    decodeDoc(data, withTenant) {
      const out: Row = {};
      for (const name of names) out[name] = decodeValue(table.columns[name]!, data[name]);
      if (withTenant && table.tenantScoped) out[TENANT_FIELD] = data[TENANT_FIELD];
      return out;
    },
  };
  codecs.set(table, codec);
  return codec;
}
