/** The explicit list of feature plugins the hub mounts. Order does not matter: dependencies do. */
import type { PluginDefinition } from '../kernel/plugin.ts';
import { accountsPlugin } from './accounts/index.ts';
import { auditPlugin } from './audit/index.ts';
import { avatarsPlugin } from './avatars/index.ts';
import { consolePlugin } from './console/index.ts';
import { discussionsPlugin } from './discussions/index.ts';
import { entitiesPlugin } from './entities/index.ts';
import { invitesPlugin } from './invites/index.ts';
import { llmProxyPlugin } from './llm-proxy/index.ts';
import { mlsRelayPlugin } from './mls-relay/index.ts';
import { noticesPlugin } from './notices/index.ts';
import { pluginSourcesPlugin } from './plugin-sources/index.ts';
import { ssoPlugin } from './sso/index.ts';

export const plugins: PluginDefinition<any>[] = [
  accountsPlugin,
  auditPlugin,
  avatarsPlugin,
  invitesPlugin,
  entitiesPlugin,
  discussionsPlugin,
  noticesPlugin,
  mlsRelayPlugin,
  pluginSourcesPlugin,
  llmProxyPlugin,
  ssoPlugin,
  consolePlugin,
];
