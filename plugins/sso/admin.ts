/**
 * Admin routes of single sign-on's links: which users are linked to the identity provider,
 * linking an existing user (by the person's subject, or with a one-time link its next sign-in
 * uses; linking.ts), unlinking one (the account stays; the person's next sign-in creates a new
 * account), and the blocked people (admin-blocks.ts).
 */
import { z } from 'zod';
import type { HubConfig } from '../../kernel/config/load.ts';
import { badRequest, notFound } from '../../kernel/errors.ts';
import { pathId } from '../../kernel/http/params.ts';
import { jsonBody } from '../../kernel/http/validate.ts';
import { DEFAULT_TENANT_ID } from '../../kernel/identity/tenants.ts';
import { createPluginApp } from '../../kernel/plugin.ts';
import type { Store } from '../../kernel/storage/contract.ts';
import { publicBaseUrl } from '../invites/index.ts';
import { adminBlockRoutes, optionalText } from './admin-blocks.ts';
import type { BlocksService } from './blocks.ts';
import { DEFAULT_LINK_HOURS, MAX_LINK_HOURS, type LinkingService } from './linking.ts';
import { ssoLinksTable, type SsoLinkRow } from './tables.ts';

export const ssoLinkSchema = z
  .object({
    userId: z.string(),
    issuer: z.string(),
    subject: z.string(),
    createdAt: z.string(),
    lastSignInAt: z.string(),
  })
  .meta({ id: 'SsoLink' });

export const toLinkRecord = (row: SsoLinkRow): z.output<typeof ssoLinkSchema> => ({
  userId: row.userId,
  issuer: row.issuer,
  subject: row.subject,
  createdAt: row.createdAt,
  lastSignInAt: row.lastSignInAt,
});

/** The provider (issuer, subject) each of these users is linked to, by user id; one query. */
export async function linkedUsers(
  store: Store,
  userIds: readonly string[],
): Promise<Map<string, { issuer: string; subject: string }>> {
  if (userIds.length === 0) return new Map();
  // Every link of the tenant (at most one per user): the list asks about all users anyway.
  const wanted = new Set(userIds);
  const rows = await store.table(ssoLinksTable).find();
  return new Map(
    rows
      .filter((row) => wanted.has(row.userId))
      .map((row) => [row.userId, { issuer: row.issuer, subject: row.subject }]),
  );
}

/** Every link of the tenant, oldest first, as `GET /admin/sso/links` and `sso links` show them. */
export async function ssoLinks(store: Store): Promise<z.output<typeof ssoLinkSchema>[]> {
  const rows = await store.table(ssoLinksTable).find({
    orderBy: [
      ['createdAt', 'asc'],
      ['id', 'asc'],
    ],
  });
  return rows.map(toLinkRecord);
}

const NO_LINK = 'User not found or not linked to the identity provider.';

const linkBody = z.object({
  userId: z.string().trim().min(1, 'must not be empty').max(128),
  subject: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(255)
    .describe("The provider's subject (`sub`) of the person"),
  issuer: optionalText(255).describe('The issuer; default: `sso.oidc.issuer`'),
});

const linkCodeBody = z.object({
  userId: z.string().trim().min(1, 'must not be empty').max(128),
  expiresInHours: z
    .number()
    .int('must be a whole number of hours')
    .min(1, 'must be at least 1 hour')
    .max(MAX_LINK_HOURS, `must be at most ${MAX_LINK_HOURS} hours`)
    .optional()
    .describe(`Lifetime of the link; default ${DEFAULT_LINK_HOURS}`),
});

export const linkCodeSchema = z
  .object({
    userId: z.string(),
    url: z.string().describe('`/login?link=hbl_…`: shown once; its next sign-in links the user'),
    expiresAt: z.string(),
  })
  .meta({ id: 'SsoLinkCode' });

/** The one-time link's address: the login page of the user's tenant, with the code. */
export function linkCodeUrl(server: HubConfig['server'], tenantId: string, code: string): string {
  const tenant = tenantId === DEFAULT_TENANT_ID ? '' : `&tenant=${encodeURIComponent(tenantId)}`;
  return `${publicBaseUrl(server)}/login?link=${code}${tenant}`;
}

export function adminSsoRoutes(deps: {
  blocks: BlocksService;
  linking: LinkingService;
  /** The configured provider's issuer, or null while single sign-on is off. */
  issuer: () => string | null;
  server: () => HubConfig['server'];
}) {
  const app = createPluginApp()
    .get('/admin/sso/links', async (c) => c.json({ links: await ssoLinks(c.get('store')) }))
    .post('/admin/sso/links', jsonBody(linkBody), async (c) => {
      const { userId, subject, issuer } = c.req.valid('json');
      const from = issuer ?? deps.issuer();
      if (!from) throw badRequest('issuer: required while single sign-on is off');
      const { link, created } = await deps.linking.link(c.get('store'), userId, {
        issuer: from,
        subject,
      });
      return c.json(toLinkRecord(link), created ? 201 : 200);
    })
    .post('/admin/sso/link-codes', jsonBody(linkCodeBody), async (c) => {
      const { userId, expiresInHours } = c.req.valid('json');
      const issued = await deps.linking.issueCode(
        c.get('store'),
        userId,
        expiresInHours ?? DEFAULT_LINK_HOURS,
      );
      return c.json(
        {
          userId: issued.user.id,
          url: linkCodeUrl(deps.server(), c.get('tenant').id, issued.code),
          expiresAt: issued.expiresAt,
        },
        201,
      );
    })
    .delete('/admin/sso/links/:userId', async (c) => {
      if (!(await deps.linking.unlink(c.get('store'), pathId(c, 'userId', NO_LINK))))
        throw notFound(NO_LINK);
      return c.body(null, 204);
    });
  app.route('/', adminBlockRoutes(deps.blocks, deps.issuer));
  return app;
}
