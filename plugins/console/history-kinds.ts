/**
 * The kinds of record whose history the console shows, by the API's path prefix
 * (`/requests/:id/revisions` …): what the history page calls them and whether they live inside a
 * collection. Read from the entities registry, so the pages and their links agree with the API.
 */
import { RECORD_KINDS } from '../entities/index.ts';

export interface HistoryKind {
  /** The API's prefix, also the console's: `/console/history/<prefix>/:id`. */
  prefix: string;
  noun: string;
  /** Inside a collection (its tree and trash show it), rather than a top-level record. */
  inCollection: boolean;
  /** `GET /<prefix>/:id` answers the record as it is now. */
  readable?: true;
}

const kept = RECORD_KINDS.filter((kind) => kind.history);

/** Items first, then folders, then top-level records, as the API mounts their history. */
export const HISTORY_KINDS: readonly HistoryKind[] = (['item', 'folder', 'top-level'] as const)
  .flatMap((placement) => kept.filter((kind) => kind.placement === placement))
  .map(({ prefix, noun, placement }) => ({
    prefix,
    noun,
    inCollection: placement !== 'top-level',
    // Items have a `GET /<prefix>/:id`.
    ...(placement === 'item' ? { readable: true as const } : {}),
  }));

/** The kind of a prefix, or undefined for one the API does not have. */
export const historyKind = (prefix: string): HistoryKind | undefined =>
  HISTORY_KINDS.find((kind) => kind.prefix === prefix);

/** The prefix of a collection item's kind as the trash names it (`request` → `requests`). */
export const ITEM_PREFIX: Readonly<Record<string, string>> = Object.fromEntries(
  kept.flatMap((kind) => (kind.placement === 'top-level' ? [] : [[kind.name, kind.prefix]])),
);

/** The console path of a record's history (give it to `page.href`). */
export const historyPath = (prefix: string, id: string) =>
  `/history/${prefix}/${encodeURIComponent(id)}`;
