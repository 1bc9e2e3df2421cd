/**
 * The audit events of accounts, tokens and tenants: their targets and what changed, worded once
 * for the users, tokens and tenants services. Nothing here carries a secret or a hash.
 */
import type { AuditInput } from '../audit.ts';
import { ENTITY_ACCESS_FIELDS } from './access-lists.ts';
import type { ApiTokenRow, TenantRow, UserRow } from './tables.ts';

/** Fields of a user an audit event may show (never a token or its hash: those live elsewhere). */
const USER_FIELDS = [
  'name',
  'role',
  'avatarInitials',
  'avatarColor',
  ...ENTITY_ACCESS_FIELDS,
  'llmAccess',
  'llmModels',
  'llmMonthlyTokenLimit',
] as const satisfies readonly (keyof UserRow)[];

const userTarget = (row: UserRow) => ({ kind: 'user', id: row.id, name: row.name });

export function userCreated(row: UserRow): AuditInput {
  const after = Object.fromEntries(USER_FIELDS.map((field) => [field, row[field]]));
  return { action: 'user.created', target: userTarget(row), details: { after } };
}

/** The fields that changed, before and after (access lists included). */
export function userUpdated(before: UserRow, after: UserRow): AuditInput {
  const was: Record<string, unknown> = {};
  const now: Record<string, unknown> = {};
  for (const field of USER_FIELDS) {
    if (JSON.stringify(before[field]) === JSON.stringify(after[field])) continue;
    was[field] = before[field];
    now[field] = after[field];
  }
  return {
    action: 'user.updated',
    target: userTarget(after),
    details: { before: was, after: now },
  };
}

export function userDeleted(row: UserRow): AuditInput {
  return { action: 'user.deleted', target: userTarget(row), details: { role: row.role } };
}

export function tokenEvent(
  action: 'token.created' | 'token.revoked' | 'token.deleted',
  token: ApiTokenRow,
  owner?: UserRow | null,
): AuditInput {
  return {
    action,
    target: { kind: 'token', id: token.id, name: token.name },
    details: {
      userId: token.userId,
      ...(owner ? { userName: owner.name } : {}),
    },
  };
}

export function tenantEvent(
  action: 'tenant.created' | 'tenant.deleted',
  row: TenantRow,
): AuditInput {
  return { action, target: { kind: 'tenant', id: row.id, name: row.name } };
}
