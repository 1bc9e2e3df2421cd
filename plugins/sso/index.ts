/**
 * The `sso` plugin: sign in with the company's OpenID Connect identity provider. A sign-in ends
 * in a one-time `hbi_` invitation code for the signed-in person, which the HarborClient desktop
 * app redeems as it does any invitation. Tokens redeemed that way expire after
 * `sso.tokenTtlDays`. Nothing of it is another plugin's face.
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
  ssoLinksTable,
  ssoUsedStatesTable,
} from './tables.ts';
import { adminSsoRoutes, linkedUsers } from './admin.ts';
import { extendUserList } from '../accounts/index.ts';

export const ssoPlugin = definePlugin<SsoConfig>({
  name: 'sso',
  // Users are created by the accounts rules; the result is an invitation of the invites plugin.
  dependencies: ['accounts', 'invites'],
  api: ssoApi,
  config: { section: 'sso', schema: ssoSchema, reloadable: true },
  tables: [ssoLinksTable, ssoBlocksTable, ssoKeysTable, ssoUsedStatesTable],
  migrations: [
    { id: 'sso/0001-links', createTables: [ssoLinksTable, retiredSsoLoginsTable] },
    // Sign-ins in progress live in a signed cookie, and single use in a small swept table: an
    // anonymous start no longer writes a row.
    {
      id: 'sso/0002-signed-sign-ins',
      dropTables: [retiredSsoLoginsTable],
      createTables: [ssoKeysTable, ssoUsedStatesTable, ssoBlocksTable],
    },
  ],
  setup(ctx) {
    const rp = createRelyingParty(() => {
      const config = ctx.config();
      if (!config) throw new Error('single sign-on is off');
      return config.oidc;
    });
    // `GET /admin/users` shows which users are linked.
    extendUserList(ctx.identity, {
      tables: [ssoLinksTable],
      linked: (store, users) =>
        linkedUsers(
          store,
          users.map((u) => u.id),
        ),
    });
    // A deleted user's link goes with the user: the next sign-in creates a new account.
    ctx.identity.users.onDelete(async (tx, user) => {
      await tx.table(ssoLinksTable).deleteWhere({ userId: user.id });
    });
    return {
      publicRoutes: publicSsoRoutes(ctx, rp),
      routes: adminSsoRoutes(),
      // The provider is discovered again with the new settings on the next sign-in.
      async reload() {
        rp.reset();
        return 'reloaded';
      },
    };
  },
});

// The plugin's public face (the CLI's `user list` uses it): the only names others may import.
export { linkedUsers } from './admin.ts';
export { ssoAuditEvent } from './audit-events.ts';
