/** The explicit list of feature plugins the hub mounts. Order does not matter: dependencies do. */
import type { PluginDefinition } from '../kernel/plugin.ts';
import { accountsPlugin } from './accounts/index.ts';
import { discussionsPlugin } from './discussions/index.ts';
import { entitiesPlugin } from './entities/index.ts';
import { mlsRelayPlugin } from './mls-relay/index.ts';
import { noticesPlugin } from './notices/index.ts';
import { pluginSourcesPlugin } from './plugin-sources/index.ts';

export const plugins: PluginDefinition<any>[] = [accountsPlugin, entitiesPlugin, discussionsPlugin, noticesPlugin, mlsRelayPlugin, pluginSourcesPlugin];
