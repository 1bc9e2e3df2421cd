/**
 * `/console/audit`: the audit log, newest first, filtered by actor (name or id), action, target id
 * and time (`since`, `until`), fifty a page following the API's cursor, and the same selection as
 * a JSON-lines download (`/console/audit/export`). A filter the API refuses comes back beside its
 * field with everything typed.
 */
import type { FC } from 'hono/jsx';
import { Field, FormMessage, type FormState } from '../forms.tsx';
import { definePage, type PageContext, type PageView } from '../page.ts';
import { apiQuery, filtersOf, readAudit, type AuditEvent } from './audit-query.ts';
import { CursorPager, queryOf, Table, When } from './parts.tsx';

const TIME_HINT = 'ISO 8601, e.g. 2026-01-02 or 2026-01-02T03:04:05Z.';

/** The filter form (a GET: its address is the selection, to share or reload). */
const Filters: FC<{ page: PageContext; state: FormState }> = ({ page, state }) => (
  <section class="card" aria-labelledby="filters-title">
    <h2 id="filters-title">Filters</h2>
    <form method="get" action={page.href('/audit')} class="filters">
      <FormMessage state={state} />
      <Field name="actor" label="Actor" hint="A user's name or id." state={state} />
      <Field name="action" label="Action" hint="For example user.created." state={state} />
      <Field name="target" label="Target id" state={state} />
      <Field name="since" label="Since" hint={TIME_HINT} state={state} />
      <Field name="until" label="Until" hint={TIME_HINT} state={state} />
      <button type="submit">Filter</button>
    </form>
  </section>
);

/** The page of `events` (or of the refused filters in `state`). */
export async function auditView(page: PageContext): Promise<PageView> {
  const filters = filtersOf(page);
  const query = await apiQuery(page.api, filters, { cursor: page.query('cursor') });
  const read = await readAudit(page.api, filters, query);
  if (!('events' in read))
    return {
      title: 'Audit log',
      body: <Filters page={page} state={read} />,
      status: 400,
    };
  const state: FormState = { values: filters, errors: {} };
  return {
    title: 'Audit log',
    body: (
      <>
        <Filters page={page} state={state} />
        <p>
          <a id="download" href={page.href(`/audit/export${queryOf(filters)}`)} download>
            Download as JSON lines
          </a>{' '}
          <span class="note">(every event of this selection, one JSON object a line)</span>
        </p>
        {read.events.length === 0 ? (
          <p class="muted" id="empty">
            No event matches.
          </p>
        ) : (
          <Events page={page} events={read.events} />
        )}
        <CursorPager
          cursor={page.query('cursor')}
          next={read.nextCursor}
          href={(cursor) => page.href(`/audit${queryOf({ ...filters, cursor })}`)}
          noun="events"
        />
      </>
    ),
  };
}

const Events: FC<{ page: PageContext; events: readonly AuditEvent[] }> = ({ page, events }) => (
  <Table
    id="events"
    title="Events"
    filter="Filter this page"
    columns={['When', 'Action', 'Who', 'What', 'From', 'Details']}
  >
    {events.map((event) => (
      <tr data-event={event.id}>
        <td>
          <When at={event.at} />
        </td>
        <td>
          <code>{event.action}</code>
        </td>
        <td>
          {event.actor ? (
            <a href={page.href(`/audit${queryOf({ actor: event.actor.id })}`)}>
              {event.actor.name}
            </a>
          ) : (
            <span class="muted">command line</span>
          )}
        </td>
        <td>
          {event.target.kind}{' '}
          <a href={page.href(`/audit${queryOf({ target: event.target.id })}`)}>
            {event.target.name}
          </a>
        </td>
        <td>{event.ip ?? <span class="muted">—</span>}</td>
        <td>
          {Object.keys(event.details).length > 0 ? (
            <details>
              <summary>Details</summary>
              <pre>{JSON.stringify(event.details, null, 1)}</pre>
            </details>
          ) : null}
        </td>
      </tr>
    ))}
  </Table>
);

export const auditPage = definePage({
  path: '/audit',
  summary: 'The audit log: filter by actor, action, target and time, page through, download',
  admin: true,
  nav: 'Audit',
  get: auditView,
});
