/**
 * The `invites` plugin: onboarding invitations (admin API, public preview and redeem) and the
 * `/join` landing page. Its service is exported for the CLI's `user invite …` commands.
 */
import { z } from 'zod';
import type { Clock } from '../../kernel/clock.ts';
import { notFound } from '../../kernel/errors.ts';
import { toUserRecord } from '../../kernel/identity/users.ts';
import { createPluginApp, definePlugin } from '../../kernel/plugin.ts';
import { invitesApi } from './api.ts';
import type { HubConfig } from '../../kernel/config/load.ts';
import { joinLink, publicBaseUrl } from './link.ts';
import { publicInviteRoutes } from './public.ts';
import {
  createInvitesService,
  DEFAULT_EXPIRES_IN_HOURS,
  MAX_EXPIRES_IN_HOURS,
  type IssuedInvitation,
  type InvitesService,
} from './service.ts';
import { invitationsTable, toInvitationRecord } from './tables.ts';
import { pathId } from '../../kernel/http/params.ts';
import { jsonBody } from '../../kernel/http/validate.ts';
import { createUserBody } from '../accounts/index.ts';

const expiresInHours = z
  .number()
  .int('must be a whole number of hours')
  .min(1, 'must be at least 1 hour')
  .max(MAX_EXPIRES_IN_HOURS, `must be at most ${MAX_EXPIRES_IN_HOURS} hours`)
  .optional();

const invitedUserBody = createUserBody.extend({ expiresInHours });
const reissueBody = z.object({ expiresInHours });

const NOT_REVOCABLE = 'Invitation not found or not revocable.';

/** Admin invitation routes (`/admin/*` is admin-only in the kernel pipeline). */
function adminInviteRoutes(
  service: InvitesService,
  clock: Clock,
  defaultHours: () => number,
  server: () => HubConfig['server'],
) {
  // `link` is the same join link the CLI prints, on server.publicUrl (else host and port).
  const issued = (
    { user, invitation, secret }: IssuedInvitation,
    tenant: { id: string; name: string },
  ) => {
    const record = toInvitationRecord(invitation, clock.now());
    const userRecord = toUserRecord(user);
    const link = joinLink({
      baseUrl: publicBaseUrl(server()),
      user: userRecord,
      expiresAt: record.expiresAt,
      secret,
      hubName: tenant.name,
      tenantId: tenant.id,
    });
    return { user: userRecord, invitation: record, secret, link };
  };
  return createPluginApp()
    .post('/admin/invited-users', jsonBody(invitedUserBody), async (c) => {
      const { expiresInHours: hours, ...input } = c.req.valid('json');
      return c.json(
        issued(
          await service.createInvitedUser(c.get('store'), input, hours ?? defaultHours()),
          c.get('tenant'),
        ),
        201,
      );
    })
    .post('/admin/users/:id/invitations', jsonBody(reissueBody), async (c) => {
      const id = pathId(c, 'id', 'User not found');
      return c.json(
        issued(
          await service.reissue(
            c.get('store'),
            id,
            c.req.valid('json').expiresInHours ?? defaultHours(),
          ),
          c.get('tenant'),
        ),
        201,
      );
    })
    .get('/admin/invitations', async (c) => {
      const now = clock.now();
      const rows = await service.list(c.get('store'));
      return c.json({ invitations: rows.map((row) => toInvitationRecord(row, now)) });
    })
    .delete('/admin/invitations/:id', async (c) => {
      const revoked = await service.revoke(c.get('store'), pathId(c, 'id', NOT_REVOCABLE));
      if (!revoked) throw notFound(NOT_REVOCABLE);
      return c.body(null, 204);
    });
}

export const invitesSchema = z
  .strictObject({
    /** Lifetime of a new invitation in hours, unless the request says otherwise. @default 24 */
    expiresInHours: z.coerce
      .number()
      .int()
      .min(1)
      .max(MAX_EXPIRES_IN_HOURS)
      .default(DEFAULT_EXPIRES_IN_HOURS),
  })
  .default({ expiresInHours: DEFAULT_EXPIRES_IN_HOURS });

export type InvitesConfig = z.output<typeof invitesSchema>;

export const invitesPlugin = definePlugin<InvitesConfig>({
  name: 'invites',
  // Invited accounts are created with the accounts plugin's body rules and records.
  dependencies: ['accounts'],
  api: invitesApi,
  config: { section: 'invites', schema: invitesSchema, reloadable: true },
  tables: [invitationsTable],
  migrations: [
    { id: 'invites/0001-invitations', createTables: [invitationsTable] },
    // Invitations issued by single sign-on redeem for tokens that expire.
    {
      id: 'invites/0002-token-ttl',
      addColumns: [{ table: invitationsTable, columns: ['tokenTtlDays'] }],
    },
  ],
  setup(ctx) {
    const service = createInvitesService({
      identity: ctx.identity,
      clock: ctx.clock,
      audit: ctx.audit,
    });
    // An invitation outlives nothing: deleting the account deletes its invitations with it.
    ctx.identity.users.onDelete(async (tx, user) => {
      await tx.table(invitationsTable).deleteWhere({ userId: user.id });
    });
    const routes = createPluginApp();
    routes.route(
      '/',
      adminInviteRoutes(
        service,
        ctx.clock,
        () => ctx.config().expiresInHours,
        () => ctx.hubConfig().server,
      ),
    );
    return { routes, publicRoutes: publicInviteRoutes(service, ctx) };
  },
});

// The plugin's public face (the CLI's `user invite` uses it): the only names others may import.
export {
  createInvitesService,
  MAX_EXPIRES_IN_HOURS,
  revokePendingInvitations,
  type InvitesService,
  type IssuedInvitation,
} from './service.ts';
export { checkInvitations } from './redeem-checks.ts';
export { joinLink, joinQuery, parseBaseUrl, publicBaseUrl } from './link.ts';
export { toInvitationRecord } from './tables.ts';
export { JOIN_STYLE } from './join-html.ts';
