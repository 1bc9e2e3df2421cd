/** `GET /health` (public) and `GET /auth/session`. */
import type { HubConfig } from '../../kernel/config/load.ts';
import { createPluginApp } from '../../kernel/plugin.ts';
import { fixedAnswer } from '../../kernel/http/edge.ts';
import { tenantsTable } from '../../kernel/identity/tables.ts';
import { toUserRecord } from '../../kernel/identity/users.ts';
import { HUB_VERSION } from '../../kernel/version.ts';
import type { ReadCache } from '../../kernel/cache.ts';
import { hubPresentation } from '../avatars/index.ts';

export function healthRoutes() {
  // A fixed answer: serialized once, written by the kernel's edge as the request arrives.
  return createPluginApp().get('/health', fixedAnswer({ status: 'ok', version: HUB_VERSION }));
}

export function sessionRoutes(hubConfig: () => HubConfig, cache: ReadCache) {
  return createPluginApp().get('/auth/session', async (c) => {
    const { user, token } = c.get('auth');
    const record = toUserRecord(user);
    // The request's tenant row may be a few seconds old (the tenant lookup's own cache), and the
    // hub avatar may have just changed: read it through the read cache, exact on every change.
    const store = c.get('store');
    const tenant =
      (await cache.read(
        store,
        `tenant:${c.get('tenant').id}`,
        [tenantsTable],
        () => store.table(tenantsTable).get(c.get('tenant').id),
        () => 512,
      )) ?? c.get('tenant');
    const admin = user.role === 'admin';
    return c.json({
      user: {
        id: record.id,
        name: record.name,
        role: record.role,
        avatarInitials: record.avatarInitials,
        avatarColor: record.avatarColor,
        ...(record.avatarImageUrl ? { avatarImageUrl: record.avatarImageUrl } : {}),
      },
      token: { id: token.id, prefix: token.tokenPrefix },
      capabilities: {
        dataApi: true,
        managementApi: admin,
        llm: user.llmAccess,
        communication: true,
        discussionE2ee: hubConfig().collaboration.e2ee,
      },
      tenantId: c.get('tenant').id,
      hub: hubPresentation(tenant),
    });
  });
}
