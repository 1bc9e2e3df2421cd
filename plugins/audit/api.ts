/** API docs of the audit routes; the query comes from the route's validator. */
import { z } from 'zod';
import type { RouteDocs } from '../../kernel/http/openapi.ts';

const actor = z.object({ id: z.string(), name: z.string() });

export const auditEventSchema = z
  .object({
    id: z.string(),
    at: z.string().describe('When it happened (ISO 8601, UTC)'),
    action: z.string().describe('`<noun>.<verb>`, e.g. `user.created`, `request.updated`'),
    actor: actor.nullable().describe('Who did it; null for the command line (`details.via`)'),
    target: z.object({ kind: z.string(), id: z.string(), name: z.string() }),
    tenantId: z.string().nullable(),
    ip: z.string().nullable().describe("The client's address; null outside a request"),
    requestId: z.string().nullable(),
    details: z
      .record(z.string(), z.unknown())
      .describe('What changed (e.g. access lists before and after); never a secret'),
  })
  .meta({ id: 'AuditEvent' });

export const auditApi: RouteDocs = {
  'GET /admin/audit': {
    summary: 'The audit log, newest first',
    description:
      'Every security and administrative event and every workspace change of this tenant. Filters combine; `since` and `until` are inclusive; pages follow `nextCursor`. Events older than `history.auditKeepDays` are pruned.',
    responses: {
      200: z.object({ events: z.array(auditEventSchema), nextCursor: z.string().optional() }),
    },
  },
};
