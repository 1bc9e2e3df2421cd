/**
 * Every reload (HTTP, SIGHUP, `workspace-hub reload`) leaves a `config.reloaded` audit event with
 * each section's status — never values or error texts, which may quote a connection string.
 */
import { scopedStore, type AuditScope, type AuditSink } from '../audit.ts';
import type { Logger } from '../log.ts';
import type { Store } from '../storage/contract.ts';
import type { ReloadOutcome } from './reload.ts';

export function auditedReload(
  reload: () => Promise<ReloadOutcome>,
  deps: { audit: AuditSink; store: () => Store; configPath: string | null; log: Logger },
): (scope?: AuditScope) => Promise<ReloadOutcome> {
  return async (scope) => {
    const outcome = await reload();
    const details = outcome.ok
      ? {
          ok: true,
          sections: [...outcome.sections, ...outcome.others].map(({ section, status }) => ({
            section,
            status,
          })),
        }
      : { ok: false };
    const target = { kind: 'config', id: deps.configPath ?? 'defaults', name: 'server.yaml' };
    // The reload has happened either way; a log that cannot be written must not undo its answer.
    await deps.audit
      .record(scope ? scopedStore(deps.store(), scope) : deps.store(), {
        action: 'config.reloaded',
        target,
        details,
      })
      .catch((error) => deps.log.error('Audit of a config reload failed', { error }));
    return outcome;
  };
}
