/**
 * Admin routes of single sign-on: which users are linked to the identity provider, and unlinking
 * one (the account stays; the person's next sign-in creates a new account, and deleting the user
 * is `DELETE /admin/users/:id`).
 */
import { z } from 'zod';
import { notFound } from '../../kernel/errors.ts';
import { pathId } from '../../kernel/http/params.ts';
import { createPluginApp } from '../../kernel/plugin.ts';
import type { Store } from '../../kernel/storage/contract.ts';
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

const NO_LINK = 'User not found or not linked to the identity provider.';

export function adminSsoRoutes() {
  return createPluginApp()
    .get('/admin/sso/links', async (c) => {
      const store = c.get('store');
      const rows = await store.table(ssoLinksTable).find({
        orderBy: [
          ['createdAt', 'asc'],
          ['id', 'asc'],
        ],
      });
      return c.json({ links: rows.map(toLinkRecord) });
    })
    .delete('/admin/sso/links/:userId', async (c) => {
      const userId = pathId(c, 'userId', NO_LINK);
      const removed = await c.get('store').table(ssoLinksTable).deleteWhere({ userId });
      if (removed === 0) throw notFound(NO_LINK);
      return c.body(null, 204);
    });
}
