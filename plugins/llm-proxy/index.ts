/**
 * The `llm-proxy` plugin: proxies chat steps to a hosted or local OpenAI-compatible model server
 * under per-user model lists and monthly token caps. The only module of the hub that imports
 * `openai` (through upstream.ts). Without an `llm` section every route answers 503, but
 * `GET /admin/llm/usage`: what was used stays counted.
 */
import { createPluginApp, definePlugin, type PluginDefinition } from '../../kernel/plugin.ts';
import { llmProxyApi } from './api.ts';
import { llmSchema, offeredModels, type LlmConfig } from './config.ts';
import { llmRoutes, type LlmDeps } from './routes.ts';
import { llmStreamRoutes } from './stream.ts';
import { llmMigrations, llmTables, llmTurnsTable } from './tables.ts';
import { createProviderClients } from './upstream.ts';

export interface LlmPluginOptions {
  /** Milliseconds between `: heartbeat` comments on chat streams; only tests change it. @default 30000 */
  heartbeatMs?: number;
}

/** Builds the plugin; `llmProxyPlugin` is the instance with the defaults. */
export function createLlmProxyPlugin(options: LlmPluginOptions = {}): PluginDefinition<LlmConfig> {
  return definePlugin<LlmConfig>({
    name: 'llm-proxy',
    api: llmProxyApi,
    config: { section: 'llm', schema: llmSchema, reloadable: true },
    tables: llmTables,
    migrations: llmMigrations,
    setup(ctx) {
      const clients = createProviderClients();
      const tokens = ctx.metrics.counter(
        'llm_tokens_total',
        'LLM tokens counted against users, by model and kind',
        ['model', 'kind'],
      );
      const deps: LlmDeps = {
        config: () => ctx.config(),
        clients,
        clock: ctx.clock,
        storage: ctx.storage,
        countTokens(model, usage) {
          tokens.inc({ model, kind: 'prompt' }, usage.promptTokens);
          tokens.inc({ model, kind: 'completion' }, usage.completionTokens);
        },
      };

      // Model ids in access lists are checked against what the hub offers. With LLM support off
      // nothing can be checked, so every id is accepted and none is reported stale.
      ctx.identity.access.register({
        field: 'llmModels',
        // Models come from the config section, not a table.
        tables: [],
        async existing(_store, ids) {
          const section = ctx.config();
          if (!section) return new Set(ids);
          const offered = new Set(offeredModels(section).map((model) => model.id));
          return new Set(ids.filter((id) => offered.has(id)));
        },
      });

      // A deleted user's admitted turns go with the account (usage totals and the log stay).
      ctx.identity.users.onDelete(async (tx, user) => {
        await tx.table(llmTurnsTable).deleteWhere({ userId: user.id });
      });

      const routes = createPluginApp();
      llmRoutes(routes, deps);
      llmStreamRoutes(routes, deps, {
        shutdown: ctx.signal,
        ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
      });
      return {
        routes,
        async reload() {
          // Keys, base URLs or timeouts may have changed; clients are rebuilt on next use. Steps in
          // flight keep the client (and section) they started with.
          clients.clear();
          return 'reloaded';
        },
      };
    },
  });
}

export const llmProxyPlugin = createLlmProxyPlugin();

export { BUILT_IN_MODELS, type ModelEntry, type Provider } from './config.ts';
