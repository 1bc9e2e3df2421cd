/**
 * What the console's routes share: the plugin's services, the console's paths under the hub's
 * base path, reading a form body, and the checks every POST passes before anything else (its
 * `Origin`, with `hono/csrf`; the session's form token is checked where the session is known).
 */
import type { Context } from 'hono';
import { csrf } from 'hono/csrf';
import type { HubConfig } from '../../kernel/config/load.ts';
import type { InProcessApi } from '../../kernel/http/in-process.ts';
import { publicBaseUrl } from '../../kernel/http/hub-address.ts';
import type { KernelEnv } from '../../kernel/plugin.ts';
import type { Store } from '../../kernel/storage/contract.ts';
import type { ConsoleConfig } from './config.ts';
import { pathPrefix } from './cookie.ts';
import type { Sessions } from './sessions.ts';

export interface ConsoleDeps {
  config(): ConsoleConfig;
  hubConfig(): HubConfig;
  sessions: Sessions;
  api: InProcessApi;
  clientIp(c: Context<KernelEnv>): string;
  /** The tenant's store, carrying the request's audit scope (who, from where). */
  auditedStore(c: Context<KernelEnv>, tenantId: string): Store;
  /** "Sign in with <provider>" for a tenant, when single sign-on admits it. */
  ssoLink(tenantId: string): { provider: string; href: string } | null;
}

/** The console's root (`/console` under the hub's base path) and the API reference's address. */
export function consolePaths(server: HubConfig['server']): { base: string; apiDocs: string } {
  const prefix = pathPrefix(server);
  return { base: `${prefix}/console`, apiDocs: `${prefix}/docs` };
}

/** A form body's text fields (files and repeated names: the last text value). */
export async function formFields(c: Context<KernelEnv>): Promise<Record<string, string>> {
  const body = await c.req.parseBody();
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(body)) {
    const last = Array.isArray(value) ? value.at(-1) : value;
    if (typeof last === 'string') fields[name] = last;
  }
  return fields;
}

/**
 * Whether a POST comes from a page of this hub: `Sec-Fetch-Site: same-origin`, or an `Origin`
 * that is the hub's public address or the address the request was sent to (`hono/csrf`). A
 * browser that sends neither is refused.
 */
export function sameOrigin(server: () => HubConfig['server']) {
  const check = csrf({
    origin: (origin, c) =>
      origin === new URL(publicBaseUrl(server())).origin || origin === new URL(c.req.url).origin,
  });
  return async (c: Context<KernelEnv>): Promise<boolean> => {
    let passed = false;
    try {
      await check(c, async () => {
        passed = true;
      });
    } catch {
      // hono/csrf throws its own 403; the console answers with a page instead.
    }
    return passed;
  };
}
