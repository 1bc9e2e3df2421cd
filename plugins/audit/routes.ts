/** `GET /admin/audit` (admin only: the pipeline guards `/admin/*`). */
import { createPluginApp } from '../../kernel/plugin.ts';
import { validate } from '../../kernel/http/validate.ts';
import { auditPage, auditQuery } from './query.ts';
import { toAuditEventRecord } from './tables.ts';

/** `keptSince`: the oldest time the log keeps (workspace changes before it are not shown). */
export function auditRoutes(keptSince: () => string | undefined) {
  return createPluginApp().get('/admin/audit', validate('query', auditQuery), async (c) => {
    const page = await auditPage(c.get('store'), {
      ...c.req.valid('query'),
      keptSince: keptSince(),
    });
    const events = page.rows.map((row) => toAuditEventRecord(row, c.get('tenant').id));
    return c.json(page.nextCursor ? { events, nextCursor: page.nextCursor } : { events });
  });
}
