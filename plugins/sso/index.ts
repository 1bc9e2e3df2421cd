/**
 * The `sso` plugin: sign in with the company's OpenID Connect identity provider. A sign-in ends
 * in a one-time `hbi_` invitation code for the signed-in person, which the HarborClient desktop
 * app redeems as it does any invitation. Tokens redeemed that way expire after
 * `sso.tokenTtlDays`. Its face (below) serves the CLI.
 */
import { definePlugin } from '../../kernel/plugin.ts';
import { ssoApi } from './api.ts';
import { ssoSchema, type SsoConfig } from './config.ts';
import { createRelyingParty } from './oidc.ts';
import { publicSsoRoutes } from './routes.ts';
import {
  retiredSsoLoginsTable,
  ssoBlocksTable,
  ssoKeysTable,
  ssoLinkCodesTable,
  ssoLinksTable,
  ssoUsedStatesTable,
} from './tables.ts';
import { adminSsoRoutes, linkedUsers } from './admin.ts';
import { blockedUserObjection, createBlocksService } from './blocks.ts';
import { createLinkingService } from './linking.ts';
import { extendUserList } from '../accounts/index.ts';
import { checkInvitations } from '../invites/index.ts';

export const ssoPlugin = definePlugin<SsoConfig>({
  name: 'sso',
  // Users are created by the accounts rules; the result is an invitation of the invites plugin.
  dependencies: ['accounts', 'invites'],
  api: ssoApi,
  config: { section: 'sso', schema: ssoSchema, reloadable: true },
  tables: [ssoLinksTable, ssoLinkCodesTable, ssoBlocksTable, ssoKeysTable, ssoUsedStatesTable],
  migrations: [
    { id: 'sso/0001-links', createTables: [ssoLinksTable, retiredSsoLoginsTable] },
    // Sign-ins in progress live in a signed cookie, and single use in a small swept table: an
    // anonymous start no longer writes a row.
    {
      id: 'sso/0002-signed-sign-ins',
      dropTables: [retiredSsoLoginsTable],
      createTables: [ssoKeysTable, ssoUsedStatesTable, ssoBlocksTable],
    },
    // An administrator links an existing user with a one-time code its next sign-in spends.
    { id: 'sso/0003-link-codes', createTables: [ssoLinkCodesTable] },
  ],
  setup(ctx) {
    const rp = createRelyingParty(() => {
      const config = ctx.config();
      if (!config) throw new Error('single sign-on is off');
      return config.oidc;
    });
    const services = { identity: ctx.identity, audit: ctx.audit, clock: ctx.clock };
    const blocks = createBlocksService(services);
    const linking = createLinkingService(services);
    // `GET /admin/users` shows which users are linked.
    extendUserList(ctx.identity, {
      tables: [ssoLinksTable],
      linked: (store, users) =>
        linkedUsers(
          store,
          users.map((u) => u.id),
        ),
    });
    // An admin's token for a linked account expires like a sign-in's, unless the admin names a
    // lifetime: otherwise a token handed out by hand would outlast the provider's say.
    ctx.identity.tokens.setDefaultDays(async (store, user) => {
      const config = ctx.config();
      if (!config) return null;
      const link = await store.table(ssoLinksTable).findOne({ userId: user.id });
      return link ? config.tokenTtlDays : null;
    });
    // A blocked person's invitation never redeems, also one a sign-in issued as the block was made.
    checkInvitations(ctx.identity, blockedUserObjection);
    // A deleted user's link and link codes go with the user: the next sign-in creates a new account.
    ctx.identity.users.onDelete(async (tx, user) => {
      await tx.table(ssoLinksTable).deleteWhere({ userId: user.id });
      await tx.table(ssoLinkCodesTable).deleteWhere({ userId: user.id });
    });
    return {
      publicRoutes: publicSsoRoutes(ctx, rp, linking),
      routes: adminSsoRoutes({
        blocks,
        linking,
        issuer: () => ctx.config()?.oidc.issuer ?? null,
        server: () => ctx.hubConfig().server,
      }),
      // The provider is discovered again with the new settings on the next sign-in.
      async reload() {
        rp.reset();
        return 'reloaded';
      },
    };
  },
});

// The plugin's public face (the CLI's `sso` commands and the web console use it): the only
// names others may import.
export { linkCodeUrl, ssoLinks, toLinkRecord } from './admin.ts';
export { createLinkingService, DEFAULT_LINK_HOURS, MAX_LINK_HOURS } from './linking.ts';
export { configuredIssuer } from './config.ts';
export { createBlocksService, toBlockRecord, type SsoBlockRecord } from './blocks.ts';
export { ssoAuditEvent } from './audit-events.ts';
export { consoleSignInLink, offerConsole } from './console.ts';
