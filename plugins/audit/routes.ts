/** `GET /admin/audit` (admin only: the pipeline guards `/admin/*`). */
import { createPluginApp } from '../../kernel/plugin.ts';
import { validate } from '../../kernel/http/validate.ts';
import { auditPage, auditQuery } from './query.ts';
import { toAuditEventRecord } from './tables.ts';

export function auditRoutes() {
  return createPluginApp().get('/admin/audit', validate('query', auditQuery), async (c) => {
    const page = await auditPage(c.var.store, c.req.valid('query'));
    const events = page.rows.map((row) => toAuditEventRecord(row, c.var.tenant.id));
    return c.json(page.nextCursor ? { events, nextCursor: page.nextCursor } : { events });
  });
}
