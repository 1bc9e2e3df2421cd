/**
 * The events of single sign-on, for the sign-in flow to record with `ctx.audit.record(store, …)`:
 * who signed in (or whom the provider named when refused) and why, never a token or a code.
 */
import type { AuditInput } from '../../kernel/audit.ts';

export function ssoAuditEvent(
  action: 'sso.signed_in' | 'sso.refused',
  subject: { id: string; name: string; provider: string },
  details: { reason?: string; subject?: string } = {},
): AuditInput {
  return {
    action,
    target: { kind: 'user', id: subject.id, name: subject.name },
    details: { provider: subject.provider, ...details },
    // The one who signs in is the actor (there is no bearer token yet on a sign-in request).
    ...(action === 'sso.signed_in' ? { actor: { id: subject.id, name: subject.name } } : {}),
  };
}
