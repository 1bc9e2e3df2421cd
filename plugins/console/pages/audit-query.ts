/**
 * The audit filters of the console as the API takes them: the form's `actor` (a user's name or
 * id), `action`, `target` (an id), `since` and `until` become `GET /admin/audit`'s query, the
 * same for the page and for its download, and a refusal goes back beside the field it names.
 */
import { ApiError, type ConsoleApi } from '../api-client.ts';
import { failedForm, type FormState } from '../forms.tsx';
import type { PageContext } from '../page.ts';
import { queryOf } from './parts.tsx';
import { listUsers } from './user-data.ts';

/** The filter fields, as the form and the page's address name them. */
export const FILTERS = ['actor', 'action', 'target', 'since', 'until'] as const;
/** The API's names of the fields whose names differ. */
const API_NAMES = { actorId: 'actor', targetId: 'target' };

export interface AuditEvent {
  id: string;
  at: string;
  action: string;
  actor: { id: string; name: string } | null;
  target: { kind: string; id: string; name: string };
  ip: string | null;
  details: Record<string, unknown>;
}

export interface AuditPage {
  events: AuditEvent[];
  nextCursor?: string;
}

/** The filters of the page's address, as typed. */
export const filtersOf = (page: PageContext): Record<string, string> =>
  Object.fromEntries(
    FILTERS.flatMap((name) => {
      const value = page.query(name)?.trim();
      return value ? [[name, value]] : [];
    }),
  );

/** The API query of the filters: the actor's name becomes their id. */
export async function apiQuery(
  api: ConsoleApi,
  filters: Record<string, string>,
  extra: Record<string, string | number | undefined> = {},
): Promise<string> {
  let actorId = filters.actor;
  if (actorId !== undefined) {
    const named = (await listUsers(api)).find(
      (user) => user.name.toLowerCase() === actorId!.toLowerCase(),
    );
    if (named) actorId = named.id;
  }
  return queryOf({
    actorId,
    action: filters.action,
    targetId: filters.target,
    since: filters.since,
    until: filters.until,
    ...extra,
  });
}

/** One page of events for the API query of `filters`, or the form's state for the API's 400. */
export async function readAudit(
  api: ConsoleApi,
  filters: Record<string, string>,
  query: string,
): Promise<AuditPage | FormState> {
  try {
    return await api.get<AuditPage>(`/admin/audit${query}`);
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 400) throw error;
    return failedForm(filters, error, FILTERS, API_NAMES);
  }
}
