/**
 * Turns an event and the acting scope into one row, written with the caller's store (so inside
 * the caller's transaction: the event lands with the change or not at all). One insert, no read.
 * Every string is escaped and capped (clean.ts): names come from clients and identity providers.
 */
import {
  IP_MAX,
  originOf,
  REQUEST_ID_MAX,
  type AuditInput,
  type AuditRecorder,
} from '../../kernel/audit.ts';
import type { Clock } from '../../kernel/clock.ts';
import { timeOrderedId } from '../../kernel/time-id.ts';
import { cleanDetails, cleanNullable, cleanText, NAME_MAX } from './clean.ts';
import {
  ACTION_MAX,
  ACTOR_ID_MAX,
  auditEventsTable,
  KIND_MAX,
  TARGET_ID_MAX,
  type AuditEventRow,
} from './tables.ts';

/** Keys never kept in `details`, whoever passes them: a secret has no place in the log. */
const SECRET_KEY = /secret|password|passphrase|hash|^token$|^code$|apikey|api_key/i;

function withoutSecrets(value: unknown, depth = 0): unknown {
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => withoutSecrets(item, depth + 1));
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !SECRET_KEY.test(key))
      .map(([key, item]) => [key, withoutSecrets(item, depth + 1)]),
  );
}

export function createRecorder(clock: Clock): AuditRecorder {
  return async (store, input: AuditInput, scope) => {
    const actor = input.actor !== undefined ? input.actor : (scope?.actor() ?? null);
    const details = cleanDetails(withoutSecrets(input.details ?? {}) ?? {}) as Record<
      string,
      unknown
    >;
    if (scope?.via) details.via = scope.via;
    const at = clock.iso();
    const origin = originOf(scope);
    const row: AuditEventRow = {
      id: timeOrderedId(at),
      at,
      action: cleanText(input.action, ACTION_MAX),
      actorId: cleanNullable(actor?.id ?? null, ACTOR_ID_MAX),
      actorName: cleanNullable(actor?.name ?? null, NAME_MAX),
      targetKind: cleanText(input.target.kind, KIND_MAX),
      targetId: cleanText(input.target.id, TARGET_ID_MAX),
      targetName: cleanText(input.target.name, NAME_MAX),
      ip: cleanNullable(origin.ip, IP_MAX),
      requestId: cleanNullable(origin.requestId, REQUEST_ID_MAX),
      details,
    };
    await store.table(auditEventsTable).insert(row);
  };
}
