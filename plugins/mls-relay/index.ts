/**
 * The `mls-relay` plugin: device key enrollment and the MLS relay behind end-to-end encrypted
 * discussions. Everything here exists only on hubs with `collaboration.e2ee: true`; elsewhere every
 * route answers 404 with the message the desktop client uses to detect that.
 */
import { createPluginApp, definePlugin } from '../../kernel/plugin.ts';
import { mlsRelayApi } from './api.ts';
import { deviceRoutes } from './devices.ts';
import { relayRoutes } from './relay.ts';
import { requireE2ee } from './schemas.ts';
import { deviceKeysTable, mlsMigrations, mlsTables } from './tables.ts';

export const mlsRelayPlugin = definePlugin({
  name: 'mls-relay',
  api: mlsRelayApi,
  // Group ids name discussion targets, which are entities.
  dependencies: ['entities'],
  tables: mlsTables,
  migrations: mlsMigrations,
  setup(ctx) {
    // Device keys belong to their account: they go with it, in the deletion's transaction.
    ctx.identity.users.onDelete(async (tx, user) => {
      await tx.table(deviceKeysTable).deleteWhere({ userId: user.id });
    });
    const routes = createPluginApp();
    const gate = requireE2ee(ctx.hubConfig);
    deviceRoutes(routes, gate, ctx.clock);
    relayRoutes(routes, gate, ctx.clock);
    return { routes };
  },
});

export { E2EE_OFF, deviceIdSchema } from './schemas.ts';
export { findActiveDevice, toDeviceRecord } from './devices.ts';
