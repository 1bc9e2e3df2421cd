/**
 * The names behind access-list ids: for every list of `kernel/identity/access.ts` (its fields, in
 * their order, and their nouns), the things an administrator may pick from, as the admin API lists
 * them — one request per kind for a whole page, never one per user or id. Also the API routes of
 * each kind, which the workspace page locks and deletes through.
 */
import {
  ACCESS_FIELDS,
  ACCESS_LABELS,
  ACCESS_LISTS,
  type AccessField,
  type EntityAccessField,
} from '../../../kernel/identity/access.ts';
import { RECORD_KINDS } from '../../entities/index.ts';
import { ApiError, type ConsoleApi } from '../api-client.ts';

interface ListSource {
  path: string;
  key: string;
  label: 'name' | 'label';
}

/** Where the admin API lists the things of each access list, and under which key. */
const LISTS = {
  ...Object.fromEntries(
    RECORD_KINDS.flatMap(({ prefix, access }) =>
      access
        ? [[access.field, { path: `/admin/${prefix}`, key: access.listKey, label: 'name' }]]
        : [],
    ),
  ),
  llmModels: { path: '/admin/llm/models', key: 'models', label: 'label' },
} as Record<AccessField, ListSource>;

/** The admin API path of an entity kind (`/admin/collections`), for its lock and delete. */
export const adminPathOf = (field: EntityAccessField) => LISTS[field].path;
/** The key an entity kind's admin list answers under (`collections`). */
export const listKeyOf = (field: EntityAccessField) => LISTS[field].key;

/** A thing an id may name. */
export interface Named {
  id: string;
  name: string;
}

/** One access list's choices: null when the hub offers none of that kind (LLM support off). */
export interface CatalogEntry {
  field: AccessField;
  /** The noun (`collection`, `live server`, `LLM model`). */
  noun: string;
  items: Named[] | null;
  /** Names by id. */
  names: ReadonlyMap<string, string>;
}

export type Catalog = readonly CatalogEntry[];

/** A list's noun in the plural, capitalised, for headings (`Live servers`). */
export const pluralTitle = (field: AccessField) =>
  ACCESS_LISTS.find((list) => list.field === field)!.heading;

async function entryOf(api: ConsoleApi, field: AccessField): Promise<CatalogEntry> {
  const list = LISTS[field];
  let items: Named[] | null;
  try {
    const answer = await api.get<Record<string, Record<string, string>[]>>(list.path);
    items = (answer[list.key] ?? []).map((row) => ({ id: row.id!, name: row[list.label]! }));
  } catch (error) {
    // LLM support not configured: there are no models to pick.
    if (!(error instanceof ApiError) || error.code !== 'not_configured') throw error;
    items = null;
  }
  return {
    field,
    noun: ACCESS_LABELS[field],
    items,
    names: new Map((items ?? []).map((item) => [item.id, item.name])),
  };
}

/** Every access list's choices, asked together (`fields` narrows them). */
export function loadCatalog(
  api: ConsoleApi,
  fields: readonly AccessField[] = ACCESS_FIELDS,
): Promise<Catalog> {
  return Promise.all(fields.map((field) => entryOf(api, field)));
}
