/**
 * PostgreSQL expressions for a versioned update in one statement (versioned.ts): the JSON of a row
 * as the codec would write it from the decoded row (camelCase keys, ISO timestamps with
 * milliseconds, JSON columns as JSON, booleans, numbers), and the casts its bound values need in
 * a SELECT list, where PostgreSQL cannot infer a parameter's type from the target column.
 */
import { toSnakeCase, type ColumnSpec, type Table } from '../table.ts';

const ISO_FORMAT = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

function valueSql(spec: ColumnSpec, ref: string): string {
  switch (spec.kind) {
    case 'json':
      return `${ref}::json`;
    case 'timestamp':
      return `to_char(${ref} AT TIME ZONE 'UTC', ${ISO_FORMAT})`;
    default:
      return ref;
  }
}

const snapshots = new WeakMap<Table, string>();

/** `json_build_object(…)` of every declared column of `table` in the row named `u`. */
export function snapshotSql(table: Table): string {
  let text = snapshots.get(table);
  if (text === undefined) {
    const pairs = Object.entries(table.columns).map(
      ([name, spec]) => `'${name}', ${valueSql(spec, `u.${toSnakeCase(name)}`)}`,
    );
    text = `json_build_object(${pairs.join(', ')})`;
    snapshots.set(table, text);
  }
  return text;
}

/** The type a bound value of this column (camelCase) is cast to. */
export function pgCast(table: Table, column: string): string {
  switch (table.columns[column]?.kind) {
    case 'int':
      return 'bigint';
    case 'bool':
      return 'boolean';
    case 'timestamp':
      return 'timestamptz';
    default:
      return 'text';
  }
}
