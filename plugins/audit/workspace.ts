/**
 * Workspace changes: the entities plugin announces each change inside its transaction on
 * `entities.changed`; the matching `<kind>.<action>` event is written with that transaction's
 * store, so it commits or rolls back with the change.
 */
import { currentAuditScope, type AuditActor, type AuditSink } from '../../kernel/audit.ts';
import type { EventBus } from '../../kernel/events.ts';
import type { Store } from '../../kernel/storage/contract.ts';
import { usersTable } from '../../kernel/identity/tables.ts';
import { ENTITY_CHANGED, type EntityChangedEvent } from '../entities/index.ts';

/**
 * The acting user's id and name. The request's own user needs no read; another one (a grouped
 * create run by another request) is read outside the transaction, since Firestore allows no read
 * after a transaction's writes.
 */
async function actorOf(
  event: EntityChangedEvent,
  storage: (tenantId: string) => Store,
): Promise<AuditActor | null> {
  if (!event.actorId) return null;
  const own = currentAuditScope()?.actor();
  if (own?.id === event.actorId) return own;
  const tenantId = event.tenantId ?? event.store.tenantId;
  const row = tenantId ? await storage(tenantId).table(usersTable).get(event.actorId) : null;
  return { id: event.actorId, name: row?.name ?? '' };
}

export function recordWorkspaceChanges(
  events: EventBus,
  audit: AuditSink,
  storage: (tenantId: string) => Store,
): () => void {
  return events.subscribe<EntityChangedEvent>(ENTITY_CHANGED, async (event) => {
    await audit.record(event.store, {
      action: `${event.kind}.${event.action}`,
      target: { kind: event.kind, id: event.id, name: event.name },
      details: { version: event.version },
      actor: await actorOf(event, storage),
    });
  });
}
