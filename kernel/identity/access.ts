/**
 * Access lists: which collections, environments, snippets, live servers, live pages and LLM models a
 * user may use. A list is either exactly `["*"]` (everything), specific ids, or `[]` (nothing).
 * Admins store empty entity lists and have implicit full access.
 *
 * Whether an id exists is known only to the plugin that owns that kind of thing, so plugins register
 * an {@link AccessResolver}; for a kind nobody provides, every specific id is unknown.
 */
import { badRequest, forbidden, type HttpError } from '../errors.ts';
import type { Store } from '../storage/contract.ts';
import type { Table } from '../storage/table.ts';
import {
  ACCESS_FIELDS,
  ACCESS_LISTS,
  type AccessField,
  type EntityAccessField,
} from './access-lists.ts';
import type { UserRow } from './tables.ts';

export {
  ACCESS_FIELDS,
  ACCESS_LISTS,
  ENTITY_ACCESS_FIELDS,
  ENTITY_ACCESS_LISTS,
  perEntityList,
  type AccessField,
  type AccessList,
  type EntityAccessField,
} from './access-lists.ts';
/** A user's access lists, one per {@link ACCESS_FIELDS} entry. */
export type AccessLists = Record<AccessField, string[]>;

/** The access lists of `source` in {@link ACCESS_FIELDS} order; a missing list is empty. */
export function accessLists(source: Partial<AccessLists>): AccessLists {
  return Object.fromEntries(
    ACCESS_FIELDS.map((field) => [field, source[field] ?? []]),
  ) as AccessLists;
}

/** The noun used in messages such as `Unknown collection id: <id>.` */
export const ACCESS_LABELS = Object.fromEntries(
  ACCESS_LISTS.map((list) => [list.field, list.label]),
) as Record<AccessField, string>;

export const WILDCARD = '*';

/** The 403 for a thing whose id the user's access list does not include. */
export function noAccess(field: AccessField): HttpError {
  return forbidden(
    `You have no access to this ${ACCESS_LABELS[field]}: it is not in your ${field} list.`,
  );
}

/** The 403 for creating a top-level thing without the wildcard on its list. */
export function cannotCreate(field: AccessField): HttpError {
  return forbidden(`Creating a ${ACCESS_LABELS[field]} needs "*" in your ${field} list.`);
}

export interface AccessResolver {
  field: AccessField;
  /** The tables `existing` reads (a cached user listing with warnings depends on them). */
  tables: readonly Table[];
  /** Returns which of `ids` exist for the store's tenant. */
  existing(store: Store, ids: readonly string[]): Promise<Set<string>>;
}

/** Checks the shape of a list: trimmed non-empty ids, no duplicates, wildcard alone. */
export function normalizeAccessList(field: AccessField, list: readonly string[]): string[] {
  const out: string[] = [];
  for (const raw of list) {
    const id = raw.trim();
    if (!id) throw badRequest(`${field}: ids must not be empty.`);
    if (!out.includes(id)) out.push(id);
  }
  if (out.includes(WILDCARD) && out.length > 1)
    throw badRequest(`${field}: Wildcard access "*" must be the only entry.`);
  return out;
}

export interface AccessRegistry {
  register(resolver: AccessResolver): void;
  /** Throws 400 `Unknown <kind> id: <id>.` when a specific id does not exist. */
  assertKnown(store: Store, field: AccessField, list: readonly string[]): Promise<void>;
  /** Warning lines for stored ids that no longer exist, for each user. */
  warnings(store: Store, users: readonly UserRow[]): Promise<Map<string, string[]>>;
  /** Every table the registered resolvers read. */
  tables(): Table[];
}

export function createAccessRegistry(): AccessRegistry {
  const resolvers = new Map<AccessField, AccessResolver>();
  const existing = async (
    store: Store,
    field: AccessField,
    ids: string[],
  ): Promise<Set<string>> => {
    const resolver = resolvers.get(field);
    if (!resolver || ids.length === 0) return new Set();
    return resolver.existing(store, ids);
  };
  return {
    register(resolver) {
      if (resolvers.has(resolver.field)) throw new Error(`Two plugins resolve ${resolver.field}`);
      resolvers.set(resolver.field, resolver);
    },
    async assertKnown(store, field, list) {
      const ids = list.filter((id) => id !== WILDCARD);
      const found = await existing(store, field, ids);
      const unknown = ids.filter((id) => !found.has(id));
      if (unknown.length === 1)
        throw badRequest(`Unknown ${ACCESS_LABELS[field]} id: ${unknown[0]}.`);
      if (unknown.length > 1)
        throw badRequest(`Unknown ${ACCESS_LABELS[field]} id(s): ${unknown.join(', ')}.`);
    },
    tables: () => [...new Set([...resolvers.values()].flatMap((resolver) => resolver.tables))],
    async warnings(store, users) {
      const result = new Map<string, string[]>(users.map((user) => [user.id, []]));
      for (const field of ACCESS_FIELDS) {
        const ids = [
          ...new Set(users.flatMap((user) => user[field]).filter((id) => id !== WILDCARD)),
        ];
        if (ids.length === 0) continue;
        const found = await existing(store, field, ids);
        for (const user of users) {
          for (const id of user[field]) {
            if (id !== WILDCARD && !found.has(id))
              result.get(user.id)!.push(`Unknown ${ACCESS_LABELS[field]} id "${id}".`);
          }
        }
      }
      return result;
    },
  };
}

/** Whether the user may use the thing with this id under the given list. */
export function hasAccess(
  user: Pick<UserRow, 'role' | AccessField>,
  field: AccessField,
  id: string,
): boolean {
  if (user.role === 'admin' && field !== 'llmModels') return true;
  const list = user[field];
  return list.includes(WILDCARD) || list.includes(id);
}

/** Whether the user may create a new top-level thing of this kind (needs the wildcard). */
export function canCreate(
  user: Pick<UserRow, 'role' | AccessField>,
  field: EntityAccessField,
): boolean {
  return user.role === 'admin' || user[field].includes(WILDCARD);
}
