/**
 * `GET /admin/config`: the configuration the hub runs with — every section, defaults filled in,
 * as the last start or reload validated it — with every secret shown as `***`
 * (`config/secrets.ts`: fields the schemas mark, keys that read like credentials, and every string
 * the file took from an environment variable). The hub's configuration is the operator's, so with
 * multitenancy only administrators of the default tenant may read it (`operator.ts`).
 */
import { Hono } from 'hono';
import { z } from 'zod';
import { pathsFromEnvironment, type HubConfig, type SectionSchemas } from '../config/load.ts';
import { maskConfig } from '../config/secrets.ts';
import { kernelSections } from '../config/sections.ts';
import type { KernelEnv } from '../plugin.ts';
import type { RouteDocs } from './openapi.ts';
import { requireOperator } from './operator.ts';

export function configViewRoutes(
  config: () => HubConfig,
  pluginSections: SectionSchemas,
): Hono<KernelEnv> {
  const schema = z.strictObject({ ...kernelSections, ...pluginSections });
  return new Hono<KernelEnv>().get('/admin/config', requireOperator, (c) => {
    const current = config();
    c.header('Cache-Control', 'no-store');
    return c.json({ config: maskConfig(current, schema, pathsFromEnvironment(current)) });
  });
}

export const configViewDocs: RouteDocs = {
  'GET /admin/config': {
    summary: 'The effective configuration, with every secret shown as `***`',
    description:
      'Every section as the last start or reload validated it, defaults included (a section the file leaves out and that has no defaults is absent). A value is `***` when its field is a secret (passwords, tokens, API keys, client secrets), when its key reads like a credential (`pass`, `secret`, `token`, `key`, `credential`, `url`, `dsn`, `auth`; `server.publicUrl` excepted, as it refuses credentials), or when the file wrote it as `${NAME}`; an empty value stays empty. With multitenancy, administrators of other tenants get 403.',
    responses: {
      200: z.object({
        config: z
          .record(z.string(), z.unknown())
          .describe('The sections of server.yaml, by name, as the hub applies them'),
      }),
    },
  },
};
