/**
 * An administrator's `/console`: how much the tenant holds, the hub's version and database,
 * whether each dependency is ready, the read cache's hit rate, open circuit breakers, and the
 * last audit events. Every figure is an API answer: `GET /admin/overview`, `GET /readyz` and
 * `GET /admin/audit`.
 */
import type { FC } from 'hono/jsx';
import { ApiError, type ConsoleApi } from '../api-client.ts';
import type { PageView } from '../page.ts';

interface Overview {
  version: string;
  database: string;
  counts: Record<string, number>;
  readCache: { hits: number; misses: number; hitRate: number | null };
  circuits: { name: string; open: boolean }[];
}

interface AuditEvent {
  id: string;
  at: string;
  action: string;
  actor: { id: string; name: string } | null;
  target: { kind: string; id: string; name: string };
}

/** How many audit events the overview shows. */
const LAST_EVENTS = 10;

/** `/readyz`'s checks, whether it answered ready (200) or not (503 with the same checks). */
async function readiness(api: ConsoleApi): Promise<Record<string, string>> {
  try {
    return (await api.get<{ checks: Record<string, string> }>('/readyz')).checks;
  } catch (error) {
    if (error instanceof ApiError && error.status === 503 && error.body.checks)
      return error.body.checks as Record<string, string>;
    throw error;
  }
}

export async function overviewView(api: ConsoleApi): Promise<PageView> {
  const [figures, checks, audit] = await Promise.all([
    api.get<Overview>('/admin/overview'),
    readiness(api),
    api.get<{ events: AuditEvent[] }>(`/admin/audit?limit=${LAST_EVENTS}`),
  ]);
  return {
    title: 'Overview',
    body: <OverviewBody figures={figures} checks={checks} events={audit.events} />,
  };
}

const percent = (rate: number | null) =>
  rate === null ? 'no lookups yet' : `${(rate * 100).toFixed(1)} %`;

const OverviewBody: FC<{
  figures: Overview;
  checks: Record<string, string>;
  events: AuditEvent[];
}> = ({ figures, checks, events }) => {
  const open = figures.circuits.filter((circuit) => circuit.open).map((circuit) => circuit.name);
  return (
    <>
      <section aria-labelledby="counts-title">
        <h2 id="counts-title">In this hub</h2>
        <ul class="figures" id="counts">
          {Object.entries(figures.counts).map(([name, count]) => (
            <li data-count={name}>
              <b>{count}</b> {name}
            </li>
          ))}
        </ul>
      </section>
      <div class="grid">
        <section class="card" aria-labelledby="hub-title">
          <h2 id="hub-title">Hub</h2>
          <dl>
            <dt>Version</dt>
            <dd id="version">{figures.version}</dd>
            <dt>Database</dt>
            <dd id="database">{figures.database}</dd>
            <dt>Read-cache hit rate</dt>
            <dd id="hit-rate">
              {percent(figures.readCache.hitRate)}{' '}
              <span class="muted">
                ({figures.readCache.hits} hits, {figures.readCache.misses} misses since start)
              </span>
            </dd>
            <dt>Open circuit breakers</dt>
            <dd id="circuits" class={open.length > 0 ? 'bad' : undefined}>
              {open.length > 0 ? open.join(', ') : 'none'}
            </dd>
          </dl>
        </section>
        <section class="card" aria-labelledby="ready-title">
          <h2 id="ready-title">Readiness</h2>
          <dl id="readiness">
            {Object.entries(checks).map(([name, state]) => (
              <>
                <dt>{name}</dt>
                <dd
                  class={state === 'ok' ? 'good' : state === 'not configured' ? undefined : 'bad'}
                >
                  {state}
                </dd>
              </>
            ))}
          </dl>
        </section>
      </div>
      <section class="card" aria-labelledby="audit-title">
        <h2 id="audit-title">Last audit events</h2>
        {events.length === 0 ? (
          <p class="muted">Nothing recorded yet.</p>
        ) : (
          // A region that may scroll sideways at 390 px: focusable, so keys can scroll it.
          <div class="scroll" tabindex={0} role="region" aria-labelledby="audit-title">
            <table id="audit" data-filter="Filter events">
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Action</th>
                  <th scope="col">Who</th>
                  <th scope="col">What</th>
                </tr>
              </thead>
              <tbody>
                {events.map((event) => (
                  <tr>
                    <td>
                      <time datetime={event.at}>{event.at.replace('T', ' ').slice(0, 19)} UTC</time>
                    </td>
                    <td>
                      <code>{event.action}</code>
                    </td>
                    <td>{event.actor?.name ?? 'command line'}</td>
                    <td>
                      {event.target.kind} {event.target.name}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  );
};
