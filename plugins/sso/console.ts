/**
 * What the web console asks of single sign-on, and no more: the "Sign in with <provider>" link of
 * its sign-in page ({@link consoleSignInLink}), and a place on the sign-in result page for its
 * form ({@link offerConsole}), which posts the one-time code to the console instead of handing it
 * to the desktop app. Registered per hub (keyed by its identity service).
 */
import type { HubConfig } from '../../kernel/config/load.ts';
import type { Identity } from '../../kernel/identity/identity.ts';
import { DEFAULT_TENANT_ID } from '../../kernel/identity/tenants.ts';
import { publicBaseUrl } from '../invites/index.ts';
import { providerName, tenantRules, type SsoConfig } from './config.ts';

/** Where the result page posts the code (`code` and `tenant` fields); null: offer nothing now. */
export interface ConsoleOffer {
  action(): string | null;
}

const offers = new WeakMap<Identity, ConsoleOffer>();

/** Registers the console's form for this hub's sign-in result page (at the console's setup). */
export function offerConsole(identity: Identity, offer: ConsoleOffer): void {
  offers.set(identity, offer);
}

/** Where this hub's result page posts the code for the console, or null. */
export function consoleAction(identity: Identity): string | null {
  return offers.get(identity)?.action() ?? null;
}

/**
 * The link to sign in with the identity provider into `tenantId`, when single sign-on is on and
 * admits that tenant; null otherwise.
 */
export function consoleSignInLink(
  config: HubConfig,
  tenantId: string,
): { provider: string; href: string } | null {
  const sso = (config as { sso?: SsoConfig }).sso;
  if (!sso || !tenantRules(sso, tenantId)) return null;
  const prefix = new URL(publicBaseUrl(config.server)).pathname.replace(/\/+$/, '');
  const query = tenantId === DEFAULT_TENANT_ID ? '' : `?tenant=${encodeURIComponent(tenantId)}`;
  return { provider: providerName(sso.oidc), href: `${prefix}/login${query}` };
}
