/**
 * `/console/audit/export`: the audit events the filters select, as JSON lines (one event per
 * line, newest first), streamed while the API is paged through as the signed-in administrator —
 * a hundred events a request, so a long log never sits in memory. Filters the API refuses give
 * the audit page with the message beside the field, before anything is sent.
 */
import { MAX_LIMIT } from '../../../kernel/http/paging.ts';
import type { ConsoleApi } from '../api-client.ts';
import { definePage, type PageContext } from '../page.ts';
import { apiQuery, filtersOf, readAudit, type AuditPage } from './audit-query.ts';
import { auditView } from './audit.tsx';

const encoder = new TextEncoder();
const lines = (page: AuditPage) =>
  encoder.encode(page.events.map((event) => `${JSON.stringify(event)}\n`).join(''));

/**
 * The rest of the selection after `first`, page by page, as a byte stream; `query` is the API's
 * query of the filters (made once: the actor's name is looked up once).
 */
function stream(api: ConsoleApi, query: string, first: AuditPage) {
  let next = first.nextCursor;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(lines(first));
      if (next === undefined) controller.close();
    },
    async pull(controller) {
      // A failure now can only cut the download short: the browser shows it as failed.
      const cursor = `${query ? '&' : '?'}cursor=${encodeURIComponent(next!)}`;
      const page = await api.get<AuditPage>(`/admin/audit${query}${cursor}`);
      controller.enqueue(lines(page));
      next = page.nextCursor;
      if (next === undefined) controller.close();
    },
  });
}

async function download(page: PageContext) {
  const filters = filtersOf(page);
  const query = await apiQuery(page.api, filters, { limit: MAX_LIMIT });
  const first = await readAudit(page.api, filters, query);
  if (!('events' in first)) return auditView(page);
  const day = new Date().toISOString().slice(0, 10);
  return new Response(stream(page.api, query, first), {
    headers: {
      'Content-Type': 'application/x-ndjson; charset=utf-8',
      'Content-Disposition': `attachment; filename="audit-${page.me.tenantId}-${day}.jsonl"`,
      'Cache-Control': 'no-store',
    },
  });
}

export const auditExportPage = definePage({
  path: '/audit/export',
  summary: 'The audit events of the filters (as `/console/audit` takes them) as JSON lines',
  admin: true,
  file: {
    contentType: 'application/x-ndjson',
    description: 'One audit event (as `GET /admin/audit` answers it) per line, newest first',
  },
  get: download,
});
