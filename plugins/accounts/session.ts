/** `GET /health` (public) and `GET /auth/session`. */
import type { HubConfig } from '../../kernel/config/load.ts';
import { createPluginApp } from '../../kernel/plugin.ts';
import { fixedAnswer } from '../../kernel/http/edge.ts';
import {
  apiTokensTable,
  tenantsTable,
  usersTable,
  type TenantRow,
} from '../../kernel/identity/tables.ts';
import type { Identity } from '../../kernel/identity/identity.ts';
import type { Authenticated } from '../../kernel/identity/tokens.ts';
import { userAvatarUrl } from '../../kernel/identity/users.ts';
import { HUB_VERSION } from '../../kernel/version.ts';
import { objectNumber, type ReadCache } from '../../kernel/cache.ts';
import { hubPresentation } from '../avatars/index.ts';

export function healthRoutes() {
  // A fixed answer: serialized once, written by the kernel's edge as the request arrives.
  return createPluginApp().get('/health', fixedAnswer({ status: 'ok', version: HUB_VERSION }));
}

/** The session's answer for a signed-in token. */
function sessionAnswer(found: Authenticated, tenant: TenantRow, config: HubConfig) {
  const { user, token } = found;
  const avatarImageUrl = userAvatarUrl(user);
  return {
    user: {
      id: user.id,
      name: user.name,
      role: user.role,
      avatarInitials: user.avatarInitials,
      avatarColor: user.avatarColor,
      ...(avatarImageUrl ? { avatarImageUrl } : {}),
    },
    token: { id: token.id, prefix: token.tokenPrefix },
    capabilities: {
      dataApi: true,
      managementApi: user.role === 'admin',
      llm: user.llmAccess,
      communication: true,
      discussionE2ee: config.collaboration.e2ee,
    },
    tenantId: tenant.id,
    hub: hubPresentation(tenant),
  };
}

export function sessionRoutes(hubConfig: () => HubConfig, cache: ReadCache, identity: Identity) {
  return createPluginApp().get('/auth/session', async (c) => {
    const { token } = c.get('auth');
    const store = c.get('store');
    const config = hubConfig();
    const requestTenant = c.get('tenant');
    // Serialized once per token, and kept while no token, user or tenant changed (and the config
    // is the same object: a reload makes a new one). The load reads what the answer is made of
    // through the read cache again, after the cache took its stamp, so a value kept under that
    // stamp is never older than it: authentication's own value was proven current earlier. The
    // tenant row is read here rather than taken from the request, whose tenant cache may be a few
    // seconds old (and the hub avatar may have just changed).
    const answer = await cache.read(
      store,
      `session:${store.tenantId}:${token.id}:${objectNumber(config)}`,
      [apiTokensTable, usersTable, tenantsTable],
      async () => {
        const found = await identity.tokens.authenticateHash(store, token.tokenHash);
        const tenant = await cache.read(
          store,
          `tenant:${requestTenant.id}`,
          [tenantsTable],
          () => store.table(tenantsTable).get(requestTenant.id),
          () => 512,
        );
        // Gone meanwhile (revoked, deleted): answer for the request as authenticated, keep nothing.
        const keep = found !== null && tenant !== null && found.token.id === token.id;
        const json = keep
          ? JSON.stringify(sessionAnswer(found, tenant, config))
          : JSON.stringify(sessionAnswer(c.get('auth'), tenant ?? requestTenant, config));
        return { json, keep };
      },
      (value) => (value.keep ? 2 * value.json.length : null),
    );
    return c.body(answer.json, 200, { 'Content-Type': 'application/json' });
  });
}
