/**
 * Every reload (HTTP, SIGHUP, `workspace-hub reload`) leaves an audit event: `config.reloaded`
 * with each section's status when everything applied, `config.reload_failed` when the file was
 * refused (its reason) or a section could not be applied (each section's status, and the reason of
 * those that failed). Reasons are the ones the log shows, which name keys and never print a
 * value's secret; hub secrets and a URL's password are masked once more on the way in.
 */
import type { AuditScope, AuditSink } from '../audit.ts';
import { redact, type Logger } from '../log.ts';
import type { Store } from '../storage/contract.ts';
import { actingAs, type StoreContext } from '../storage/context.ts';
import type { ReloadOutcome } from './reload.ts';

/** A reason as the audit log keeps it: no hub secret, no password in a URL. */
function safeReason(text: string): string {
  return redact(text).replace(/(\/\/[^/\s:@]*):[^@\s/]*@/g, '$1:***@');
}

/** The audit event's action and details for a reload's outcome. */
function reloadAuditEvent(outcome: ReloadOutcome): {
  action: 'config.reloaded' | 'config.reload_failed';
  details: Record<string, unknown>;
} {
  if (!outcome.ok)
    return {
      action: 'config.reload_failed',
      details: { ok: false, reason: safeReason(outcome.fatalError) },
    };
  const sections = [...outcome.sections, ...outcome.others].map(({ section, status, error }) => ({
    section,
    status,
    ...(status === 'failed' && error ? { reason: safeReason(error) } : {}),
  }));
  const failed = sections.some((entry) => entry.status === 'failed');
  return failed
    ? { action: 'config.reload_failed', details: { ok: false, sections } }
    : { action: 'config.reloaded', details: { ok: true, sections } };
}

export function auditedReload(
  reload: () => Promise<ReloadOutcome>,
  deps: {
    audit: AuditSink;
    /** The default tenant's store, with the reload's context (none for a signal's). */
    store: (context?: StoreContext) => Store;
    configPath: string | null;
    log: Logger;
  },
): (scope?: AuditScope) => Promise<ReloadOutcome> {
  return async (scope) => {
    const outcome = await reload();
    const target = { kind: 'config', id: deps.configPath ?? 'defaults', name: 'server.yaml' };
    // The reload has happened either way; a log that cannot be written must not undo its answer.
    await deps.audit
      .record(deps.store(scope && actingAs(scope)), {
        ...reloadAuditEvent(outcome),
        target,
      })
      .catch((error) => deps.log.error('Audit of a config reload failed', { error }));
    return outcome;
  };
}
