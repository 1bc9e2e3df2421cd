/**
 * Table declarations: the only way a plugin describes what it stores.
 *
 * A table is a name, a set of typed columns, an `id` primary key (a string), indexes and unique
 * constraints. Drivers turn the declaration into DDL (SQL) or collection layouts (Firestore); plugins
 * never write SQL. Column names are camelCase in TypeScript; SQL drivers store them as snake_case.
 *
 * Every table is tenant-scoped unless it says `tenantScoped: false`: drivers add a `tenant_id`
 * column, prefix every index and unique constraint with it, and the tenant-bound API fills it in.
 */

/** The storage kinds a column may have. */
export type ColumnKind = 'id' | 'string' | 'text' | 'int' | 'bool' | 'json' | 'timestamp';

export interface ColumnSpec<T = unknown> {
  readonly kind: ColumnKind;
  readonly nullable: boolean;
  /** For `string` columns: the maximum length in characters (SQL `VARCHAR(n)`). */
  readonly maxLength?: number;
  /** Phantom field that carries the TypeScript type of the value; never set at runtime. */
  readonly __type?: T;
}

function column<T>(kind: ColumnKind, nullable: boolean, maxLength?: number): ColumnSpec<T> {
  return maxLength === undefined ? { kind, nullable } : { kind, nullable, maxLength };
}

/**
 * Column builders. Timestamps travel as ISO 8601 strings in UTC with milliseconds
 * (`2026-01-02T03:04:05.678Z`) on every driver, so rows can go straight into responses.
 */
export const col = {
  /** A UUID or other short identifier (at most 128 characters). */
  id: () => column<string>('id', false, 128),
  idNullable: () => column<string | null>('id', true, 128),
  /**
   * A short, indexable string; `T` narrows its type (e.g. an enum the plugin validates on write).
   * @default maxLength 255
   */
  string: <T extends string = string>(maxLength = 255) => column<T>('string', false, maxLength),
  stringNullable: (maxLength = 255) => column<string | null>('string', true, maxLength),
  /** Unbounded text; not indexable on every driver. */
  text: () => column<string>('text', false),
  textNullable: () => column<string | null>('text', true),
  /** A 64-bit integer, returned as a JavaScript number. */
  int: () => column<number>('int', false),
  intNullable: () => column<number | null>('int', true),
  bool: () => column<boolean>('bool', false),
  /** Any JSON value, stored serialized; returned parsed. */
  json: <T>() => column<T>('json', false),
  jsonNullable: <T>() => column<T | null>('json', true),
  timestamp: () => column<string>('timestamp', false),
  timestampNullable: () => column<string | null>('timestamp', true),
};

export type Columns = Record<string, ColumnSpec>;

/** The row type of a column set. */
export type RowOf<C extends Columns> = {
  [K in keyof C]: C[K] extends ColumnSpec<infer T> ? T : never;
};

export interface IndexSpec {
  /** Columns in order. */
  readonly columns: readonly string[];
}

export interface TableSpec<C extends Columns = Columns> {
  /** Table (collection) name, snake_case, unique across the hub. */
  readonly name: string;
  readonly columns: C;
  /** Secondary indexes (the tenant column is prepended automatically on tenant-scoped tables). */
  readonly indexes: readonly (readonly (keyof C & string)[])[];
  /** Unique constraints (per tenant on tenant-scoped tables). */
  readonly unique: readonly (readonly (keyof C & string)[])[];
  /**
   * Query shapes (equality columns, then the column ordered by) that SQL databases serve by
   * walking a key they have (newest first along the primary key, filtering as they go), but that
   * Firestore answers only from a composite index: listed by `migrate --firestore-indexes`, never
   * created in SQL.
   */
  readonly firestoreIndexes: readonly (readonly (keyof C & string)[])[];
  /** @default true */
  readonly tenantScoped: boolean;
  /**
   * Bookkeeping columns whose changes do not move the table's change stamp (storage/changes.ts):
   * no cached value may depend on them. An update that sets only these leaves caches alone.
   */
  readonly untracked: readonly (keyof C & string)[];
  /**
   * Whether cached values may read this table. False for an append-only log that no cache reads
   * (revisions, the audit log): its writes move no change stamp and tell no other process, so
   * PostgreSQL gets no NOTIFY trigger, MySQL no counter triggers and Firestore no counter for it.
   */
  readonly changeFeed: boolean;
  /**
   * Whether `workspace-hub export` writes the table's rows (and `import` reads them). False for a
   * secret that never needs to travel, such as a signing key the hub makes again on the target,
   * and the records that live only as long as what it signed.
   */
  readonly exported: boolean;
}

/** A declared table; `Row` is the row type plugins read and write. */
export type Table<C extends Columns = Columns> = TableSpec<C> & { readonly __row?: RowOf<C> };

export type RowOfTable<T> = T extends Table<infer C> ? RowOf<C> : never;

export interface DefineTableOptions<C extends Columns> {
  name: string;
  columns: C & { id: ColumnSpec<string> };
  indexes?: (keyof C & string)[][];
  unique?: (keyof C & string)[][];
  /** See {@link TableSpec.firestoreIndexes}. @default [] */
  firestoreIndexes?: (keyof C & string)[][];
  /** @default true */
  tenantScoped?: boolean;
  /** See {@link TableSpec.untracked}. @default [] */
  untracked?: (keyof C & string)[];
  /** See {@link TableSpec.changeFeed}. @default true */
  changeFeed?: boolean;
  /** See {@link TableSpec.exported}. @default true */
  exported?: boolean;
}

/**
 * For {@link TableSpec.firestoreIndexes}: every combination of these equality filters (each a
 * group of columns always filtered together), followed by `id` — the shapes of a log read newest
 * first by any mix of its filters, with no filter too.
 */
export function equalitiesThenId<const K extends string>(
  filters: readonly (readonly K[])[],
): (K | 'id')[][] {
  const shapes: (K | 'id')[][] = [];
  for (let mask = 0; mask < 1 << filters.length; mask++)
    shapes.push([...filters.filter((_, i) => mask & (1 << i)).flat(), 'id']);
  return shapes;
}

const TABLE_NAME = /^[a-z][a-z0-9_]{0,62}$/;
const COLUMN_NAME = /^[a-z][A-Za-z0-9]{0,62}$/;

/** Declares a table. Throws at module load when the declaration is malformed. */
export function defineTable<C extends Columns>(options: DefineTableOptions<C>): Table<C> {
  if (!TABLE_NAME.test(options.name)) throw new Error(`Invalid table name "${options.name}"`);
  for (const name of Object.keys(options.columns)) {
    if (!COLUMN_NAME.test(name)) throw new Error(`Invalid column name "${options.name}.${name}"`);
    if (name === 'tenantId')
      throw new Error(`"${options.name}.tenantId" is added by the kernel; do not declare it`);
  }
  const known = new Set(Object.keys(options.columns));
  for (const list of [
    ...(options.indexes ?? []),
    ...(options.unique ?? []),
    ...(options.firestoreIndexes ?? []),
    options.untracked ?? [],
  ]) {
    for (const name of list) {
      if (!known.has(name)) throw new Error(`Index on unknown column "${options.name}.${name}"`);
    }
  }
  return {
    name: options.name,
    columns: options.columns,
    indexes: options.indexes ?? [],
    unique: options.unique ?? [],
    firestoreIndexes: options.firestoreIndexes ?? [],
    tenantScoped: options.tenantScoped ?? true,
    untracked: options.untracked ?? [],
    changeFeed: options.changeFeed ?? true,
    exported: options.exported ?? true,
  };
}

/** camelCase → snake_case, used by SQL drivers for column names. */
export function toSnakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (ch) => `_${ch.toLowerCase()}`);
}
