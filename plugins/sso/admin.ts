/**
 * Admin routes of single sign-on: which users are linked to the identity provider, unlinking one
 * (the account stays; the person's next sign-in creates a new account, and deleting the user is
 * `DELETE /admin/users/:id`), and blocking a person the provider still admits (blocks.ts).
 */
import { z } from 'zod';
import { badRequest, notFound } from '../../kernel/errors.ts';
import { pathId } from '../../kernel/http/params.ts';
import { jsonBody } from '../../kernel/http/validate.ts';
import { createPluginApp } from '../../kernel/plugin.ts';
import type { Store } from '../../kernel/storage/contract.ts';
import { toBlockRecord, type BlocksService } from './blocks.ts';
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

const toLinkRecord = (row: SsoLinkRow): z.output<typeof ssoLinkSchema> => ({
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
const NO_BLOCK = 'Block not found.';

const text = (max: number) =>
  z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    .optional();

/** Whom to block: `userId` (a linked user), or `subject` with an optional `issuer`. */
export const blockBody = z
  .object({
    userId: text(128).describe('A user linked to the identity provider'),
    subject: text(255).describe("The provider's subject (`sub`) of the person"),
    issuer: text(255).describe('With `subject`: the issuer; default: `sso.oidc.issuer`'),
  })
  .refine((body) => (body.userId === undefined) !== (body.subject === undefined), {
    message: 'give userId or subject (exactly one)',
  })
  .refine((body) => body.issuer === undefined || body.subject !== undefined, {
    path: ['issuer'],
    message: 'only with subject',
  });

/** `issuer()`: the configured provider's issuer, or null while single sign-on is off. */
export function adminSsoRoutes(blocks: BlocksService, issuer: () => string | null) {
  return createPluginApp()
    .get('/admin/sso/links', async (c) => c.json({ links: await ssoLinks(c.get('store')) }))
    .delete('/admin/sso/links/:userId', async (c) => {
      const userId = pathId(c, 'userId', NO_LINK);
      const removed = await c.get('store').table(ssoLinksTable).deleteWhere({ userId });
      if (removed === 0) throw notFound(NO_LINK);
      return c.body(null, 204);
    })
    .get('/admin/sso/blocks', async (c) => {
      const rows = await blocks.list(c.get('store'));
      return c.json({ blocks: rows.map(toBlockRecord) });
    })
    .post('/admin/sso/blocks', jsonBody(blockBody), async (c) => {
      const body = c.req.valid('json');
      let target: Parameters<BlocksService['block']>[1];
      if (body.userId !== undefined) target = { userId: body.userId };
      else {
        const from = body.issuer ?? issuer();
        if (!from) throw badRequest('issuer: required while single sign-on is off');
        target = { subject: body.subject!, issuer: from };
      }
      const row = await blocks.block(c.get('store'), target);
      return c.json(toBlockRecord(row), 201);
    })
    .delete('/admin/sso/blocks/:id', async (c) => {
      const removed = await blocks.unblock(c.get('store'), pathId(c, 'id', NO_BLOCK));
      if (!removed) throw notFound(NO_BLOCK);
      return c.body(null, 204);
    });
}
