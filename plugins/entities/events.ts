/**
 * The events other plugins hear from entities: `entities.deleted` after records are removed, and
 * `entities.item.moved` inside the transaction that moves an item to another collection.
 */
import type { EventBus } from '../../kernel/events.ts';
import type { Store } from '../../kernel/storage/contract.ts';
import type { ItemKindName, KindName } from './kinds/index.ts';

/** Event topic published after entities are removed, with every removed id by kind. */
export const ENTITIES_DELETED = 'entities.deleted';

/** Every kind of record can be deleted: the event names them as the registry does. */
export type DeletedKind = KindName;

export interface EntitiesDeletedEvent {
  tenantId: string;
  removed: Partial<Record<DeletedKind, string[]>>;
}

/**
 * Event topic published inside the transaction that moves a saved request or document to another
 * collection, so what other plugins keep about it (a notice's collection id) moves with it.
 */
export const ITEM_MOVED = 'entities.item.moved';

export interface ItemMovedEvent {
  /** The move's transaction: handlers write through it, so they commit or fail with the move. */
  tx: Store;
  kind: ItemKindName;
  id: string;
  collectionId: string;
}

export function publishDeleted(
  deps: { events: EventBus },
  tenantId: string,
  removed: EntitiesDeletedEvent['removed'],
): Promise<void> {
  return deps.events.publish<EntitiesDeletedEvent>(ENTITIES_DELETED, { tenantId, removed });
}
