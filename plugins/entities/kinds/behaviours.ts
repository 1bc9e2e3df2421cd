/**
 * Each top-level kind's registry entry joined with its behaviour (the kind's own file): what the
 * shared top-level routes mount, one set per kind. A top-level kind in the registry without a
 * behaviour here fails to compile.
 */
import { collectionsBehaviour } from './collections.ts';
import { environmentsBehaviour } from './environments.ts';
import { TOP_LEVEL_KINDS, type TopLevelKind, type TopLevelName } from './index.ts';
import { livePagesBehaviour, liveServersBehaviour } from './live.ts';
import { snippetsBehaviour } from './snippets.ts';
import type { TopLevelBehaviour } from './top-level.ts';

const BEHAVIOURS = {
  collection: collectionsBehaviour,
  environment: environmentsBehaviour,
  snippet: snippetsBehaviour,
  'live-server': liveServersBehaviour,
  'live-page': livePagesBehaviour,
} satisfies Record<TopLevelName, TopLevelBehaviour<any, any, any, any>>;

export const topLevelKinds: readonly TopLevelKind[] = TOP_LEVEL_KINDS.map((kind) => ({
  ...BEHAVIOURS[kind.name],
  ...kind,
}));
