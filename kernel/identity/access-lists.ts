/**
 * The access lists, in one table: the user field, the noun its messages use, the CLI flag that
 * sets it and the heading summaries show it under (the CLI's `user show`, invitation pages, the
 * console). Everything that names the lists — the users table, request bodies and answers, the
 * CLI's flags and messages, the console's pickers, the OpenAPI document — is derived from it.
 * The first five are the entity lists (the `entities` plugin resolves their ids); `llmModels` is
 * the LLM proxy's.
 */
export const ACCESS_LISTS = [
  {
    field: 'collectionAccess',
    label: 'collection',
    flag: 'collection-access',
    heading: 'Collections',
  },
  {
    field: 'environmentAccess',
    label: 'environment',
    flag: 'environment-access',
    heading: 'Environments',
  },
  { field: 'snippetAccess', label: 'snippet', flag: 'snippet-access', heading: 'Snippets' },
  {
    field: 'liveServerAccess',
    label: 'live server',
    flag: 'live-server-access',
    heading: 'Live servers',
  },
  { field: 'livePageAccess', label: 'live page', flag: 'live-page-access', heading: 'Live pages' },
  { field: 'llmModels', label: 'LLM model', flag: 'llm-model', heading: 'LLM models' },
] as const;

export type AccessList = (typeof ACCESS_LISTS)[number];
export type AccessField = AccessList['field'];
export type EntityAccessField = Exclude<AccessField, 'llmModels'>;

export const ACCESS_FIELDS: readonly AccessField[] = ACCESS_LISTS.map((list) => list.field);
/** The entity lists: every access list but the LLM models. */
export const ENTITY_ACCESS_LISTS = ACCESS_LISTS.filter(
  (list): list is Extract<AccessList, { field: EntityAccessField }> => list.field !== 'llmModels',
);
export const ENTITY_ACCESS_FIELDS: readonly EntityAccessField[] = ENTITY_ACCESS_LISTS.map(
  (list) => list.field,
);

/** One value per entity list, in the table's order (columns, schema fields, defaults). */
export function perEntityList<T>(
  value: (field: EntityAccessField) => T,
): Record<EntityAccessField, T> {
  return Object.fromEntries(ENTITY_ACCESS_FIELDS.map((field) => [field, value(field)])) as Record<
    EntityAccessField,
    T
  >;
}
