/**
 * The `accounts` plugin: health, the session, and admin management of users, tokens and tenants. The rules
 * themselves live in the kernel's identity service, which the CLI shares.
 */
import { definePlugin, createPluginApp } from '../../kernel/plugin.ts';
import { accountsApi } from './api.ts';
import { adminTenantRoutes } from './admin-tenants.ts';
import { adminUserRoutes } from './admin-users.ts';
import { healthRoutes, sessionRoutes } from './session.ts';

export const accountsPlugin = definePlugin({
  name: 'accounts',
  // `PUT /admin/users/:id` stores `imageDataUrl` in the avatars plugin's table.
  dependencies: ['avatars'],
  api: accountsApi,
  setup(ctx) {
    const routes = createPluginApp();
    routes.route('/', sessionRoutes(ctx.hubConfig, ctx.cache, ctx.identity));
    routes.route('/', adminUserRoutes(ctx.identity, ctx.clock, ctx.cache, ctx.hubConfig));
    routes.route('/', adminTenantRoutes(ctx.identity, ctx.hubConfig, ctx.storage));
    return { publicRoutes: healthRoutes(), routes };
  },
});

// The plugin's public face: the only names other plugins may import from accounts.
export { tokenRecordSchema, userRecordSchema } from './api.ts';
export { createUserBody, MAX_TOKEN_DAYS } from './schemas.ts';
export {
  extendUserList,
  listUsers,
  type LinkedProvider,
  type ListedUser,
} from './list-extensions.ts';
