/**
 * The kinds of record whose history the console shows, by the API's path prefix
 * (`/requests/:id/revisions` …): what the history page calls them and whether they live inside a
 * collection. One table, so the pages and their links agree on the prefixes.
 */

export interface HistoryKind {
  /** The API's prefix, also the console's: `/console/history/<prefix>/:id`. */
  prefix: string;
  noun: string;
  /** Inside a collection (its tree and trash show it), rather than a top-level record. */
  inCollection: boolean;
  /** `GET /<prefix>/:id` answers the record as it is now. */
  readable?: true;
}

export const HISTORY_KINDS: readonly HistoryKind[] = [
  { prefix: 'requests', noun: 'saved request', inCollection: true, readable: true },
  { prefix: 'documents', noun: 'document', inCollection: true, readable: true },
  { prefix: 'folders', noun: 'folder', inCollection: true },
  { prefix: 'collections', noun: 'collection', inCollection: false },
  { prefix: 'environments', noun: 'environment', inCollection: false },
  { prefix: 'snippets', noun: 'snippet', inCollection: false },
  { prefix: 'live-servers', noun: 'live server', inCollection: false },
  { prefix: 'live-pages', noun: 'live page', inCollection: false },
];

/** The kind of a prefix, or undefined for one the API does not have. */
export const historyKind = (prefix: string): HistoryKind | undefined =>
  HISTORY_KINDS.find((kind) => kind.prefix === prefix);

/** The prefix of a collection item's kind as the trash names it (`request` → `requests`). */
export const ITEM_PREFIX: Readonly<Record<string, string>> = {
  request: 'requests',
  document: 'documents',
  folder: 'folders',
};

/** The console path of a record's history (give it to `page.href`). */
export const historyPath = (prefix: string, id: string) =>
  `/history/${prefix}/${encodeURIComponent(id)}`;
