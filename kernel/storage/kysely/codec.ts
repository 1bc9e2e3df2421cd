/**
 * Converting rows between the contract's shape (camelCase, ISO timestamps, parsed JSON, booleans,
 * numbers) and what the SQL drivers send and return (snake_case, Date, text, 0/1, bigint strings).
 */
import { StorageError } from '../contract.ts';
import { toSnakeCase, type ColumnSpec, type Table } from '../table.ts';

export const TENANT_COLUMN = 'tenant_id';

/** PostgreSQL cannot store or even compare text with a NUL character, so no driver accepts one. */
export function hasNul(value: unknown): boolean {
  return typeof value === 'string' && value.includes('\u0000');
}

export function encodeValue(spec: ColumnSpec, value: unknown, column = 'value'): unknown {
  if (hasNul(value))
    throw new StorageError('invalid', `${column}: must not contain the NUL character.`);
  if (value === null || value === undefined) {
    return spec.kind === 'json' && value !== undefined ? JSON.stringify(null) : null;
  }
  switch (spec.kind) {
    case 'json':
      return JSON.stringify(value);
    case 'timestamp': {
      const date = value instanceof Date ? value : new Date(String(value));
      if (Number.isNaN(date.getTime())) throw new TypeError(`Invalid timestamp: ${String(value)}`);
      return date;
    }
    case 'bool':
      return value ? 1 : 0;
    default:
      return value;
  }
}

/** PostgreSQL's text form of a UTC timestamptz, e.g. `2026-01-02 03:04:05.6+00`. */
const PG_UTC = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?\+00$/;

/** SQLite's stored form, already what the contract returns: `2026-01-02T03:04:05.678Z`. */
const ISO_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** Any timestamp a driver returns → ISO 8601 UTC with milliseconds, without a Date when possible. */
function toIsoTimestamp(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  const text = String(value);
  if (ISO_UTC.test(text)) return text;
  const match = PG_UTC.exec(text);
  if (match) return `${match[1]}T${match[2]}.${(match[3] ?? '').padEnd(3, '0').slice(0, 3)}Z`;
  return new Date(text).toISOString();
}

type Decoder = (value: unknown) => unknown;

/** One decoder per column kind, chosen once per table rather than per value. */
function decoderFor(spec: ColumnSpec): Decoder {
  switch (spec.kind) {
    case 'json':
      return (value) => (typeof value === 'string' ? JSON.parse(value) : value);
    case 'timestamp':
      return toIsoTimestamp;
    case 'bool':
      return (value) => value === true || value === 1 || value === '1' || value === 't';
    case 'int':
      return (value) => (typeof value === 'number' ? value : Number(value));
    default:
      return (value) => value;
  }
}

export function decodeValue(spec: ColumnSpec, value: unknown): unknown {
  return value === null || value === undefined ? null : decoderFor(spec)(value);
}

/** Column name mapping and row conversion for one table. */
export interface TableCodec {
  table: Table;
  /** camelCase → snake_case for every declared column. */
  column(name: string): string;
  encodeRow(row: Record<string, unknown>): Record<string, unknown>;
  decodeRow(raw: Record<string, unknown>, withTenant: boolean): Record<string, unknown>;
  encode(name: string, value: unknown): unknown;
}

const codecs = new WeakMap<Table, TableCodec>();

export function codecFor(table: Table): TableCodec {
  const cached = codecs.get(table);
  if (cached) return cached;
  const names = Object.keys(table.columns);
  const snake = new Map(names.map((name) => [name, toSnakeCase(name)]));
  const decoders = names.map(
    (name) => [name, snake.get(name)!, decoderFor(table.columns[name]!)] as const,
  );
  const spec = (name: string): ColumnSpec => {
    const found = table.columns[name];
    if (!found) throw new TypeError(`Unknown column "${table.name}.${name}"`);
    return found;
  };
  const codec: TableCodec = {
    table,
    column: (name) => {
      const column = snake.get(name);
      if (!column) throw new TypeError(`Unknown column "${table.name}.${name}"`);
      return column;
    },
    encode: (name, value) => encodeValue(spec(name), value, name),
    encodeRow(row) {
      const out: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(row)) {
        if (name === 'tenantId' || value === undefined) continue;
        out[codec.column(name)] = encodeValue(spec(name), value, name);
      }
      return out;
    },
    decodeRow(raw, withTenant) {
      const out: Record<string, unknown> = {};
      for (const [name, column, decode] of decoders) {
        const value = raw[column];
        out[name] = value === null || value === undefined ? null : decode(value);
      }
      if (withTenant && table.tenantScoped) out.tenantId = raw[TENANT_COLUMN];
      return out;
    },
  };
  codecs.set(table, codec);
  return codec;
}

/** Rows per multi-row INSERT: well under every database's limit on bound parameters. */
/**
 * The columns of `table` whose change other processes hear of (its change trigger or counters):
 * all but the bookkeeping ones (`untracked`), in their stored names.
 */
export function trackedColumns(table: Table): string[] {
  const untracked = new Set(table.untracked as readonly string[]);
  return [
    ...(table.tenantScoped ? [TENANT_COLUMN] : []),
    ...Object.keys(table.columns)
      .filter((c) => !untracked.has(c))
      .map(toSnakeCase),
  ];
}

export const INSERT_CHUNK = 100;

/** The columns an INSERT of `row` into `table` writes: the row encoded, and its tenant. */
export function insertedValues(
  table: Table,
  codec: TableCodec,
  tenantId: string | null,
  row: Record<string, unknown>,
): Record<string, unknown> {
  const values = codec.encodeRow(row);
  if (table.tenantScoped) {
    const tenant = tenantId ?? (row.tenantId as string | undefined);
    if (!tenant)
      throw new TypeError(`Inserting into ${table.name} through the unscoped store needs tenantId`);
    values[TENANT_COLUMN] = tenant;
  }
  return values;
}
