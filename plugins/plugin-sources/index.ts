/**
 * The `plugin-sources` plugin: the plugin catalog and trusted-publisher URLs the desktop app offers
 * its users (`GET /plugins/sources`). Both lists come from the `plugins` section of server.yaml and
 * are empty without it. The section is read per request, so a config reload applies at once.
 */
import { z } from 'zod';
import { createPluginApp, definePlugin } from '../../kernel/plugin.ts';

const url = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });
/** Keeps the first of equal URLs, in file order. */
const urlList = z
  .array(url)
  .default([])
  .transform((list) => [...new Set(list)]);

export const pluginSourcesSchema = z
  .strictObject({
    /** Catalog URLs the desktop lists plugins from. @default [] */
    catalogs: urlList,
    /** URLs of publishers whose plugins install without a warning. @default [] */
    trusted: urlList,
  })
  .optional();

export type PluginSourcesConfig = z.output<typeof pluginSourcesSchema>;

export const pluginSourcesPlugin = definePlugin<PluginSourcesConfig>({
  name: 'plugin-sources',
  config: { section: 'plugins', schema: pluginSourcesSchema, reloadable: true },
  api: {
    'GET /plugins/sources': {
      summary: 'Plugin catalogs and trusted publishers (from the `plugins` section)',
      responses: { 200: z.object({ catalogs: z.array(z.string()), trusted: z.array(z.string()) }) },
    },
  },
  setup(ctx) {
    const routes = createPluginApp();
    routes.get('/plugins/sources', (c) => {
      const section = ctx.config();
      return c.json({ catalogs: section?.catalogs ?? [], trusted: section?.trusted ?? [] });
    });
    return { routes };
  },
});
