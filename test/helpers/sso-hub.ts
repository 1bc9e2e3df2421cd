/**
 * A hub that signs in through a test identity provider, for the enclosing describe block: the
 * provider (oidc-idp.ts) with its people, and the hub's `server.publicUrl` and `sso` section
 * pointing at it.
 */
import { afterAll, beforeAll } from 'vitest';
import type { Clock } from '../../kernel/clock.ts';
import { useBrowserHub, type BrowserHub } from './browser.ts';
import { EMBEDDED_DRIVER, type DriverKind } from './drivers.ts';
import { useTestHub, type UsedTestHub } from './hub.ts';
import { freePort } from './net.ts';
import { oidcClient, startTestIdp, type IdpPerson, type TestIdp } from './oidc-idp.ts';

export interface SsoHubOptions {
  /** The hub's public URL; the provider redirects to its `/auth/sso/callback`. */
  hubBase: string;
  people: IdpPerson[];
  clock?: Clock;
  /** Added to `sso.oidc` (the provider's client settings). */
  oidc?: Record<string, unknown>;
  /** Added to the `sso` section. */
  sso?: Record<string, unknown>;
  /** Tenants (id → name) that exist and sign in through the provider; multitenancy is on then. */
  tenants?: Record<string, string>;
}

export function useSsoHub(
  kind: DriverKind,
  options: SsoHubOptions,
): { t: UsedTestHub; readonly idp: TestIdp } {
  let idp: TestIdp | undefined;
  beforeAll(async () => {
    idp = await startTestIdp({
      redirectUri: `${options.hubBase}/auth/sso/callback`,
      people: options.people,
    });
  });
  afterAll(async () => idp?.close());
  const tenants = Object.entries(options.tenants ?? {});
  const t = useTestHub(kind, () => ({
    ...(options.clock ? { clock: options.clock } : {}),
    config: {
      server: { publicUrl: options.hubBase },
      ...(tenants.length > 0 ? { multitenancy: { enabled: true } } : {}),
      sso: {
        oidc: { ...oidcClient(idp!), ...options.oidc },
        ...(tenants.length > 0
          ? { tenants: Object.fromEntries(tenants.map(([id]) => [id, {}])) }
          : {}),
        ...options.sso,
      },
    },
  }));
  if (tenants.length > 0)
    beforeAll(async () => {
      for (const [id, name] of tenants) await t.hub.identity.tenants.create(id, name);
    });
  return {
    t,
    get idp() {
      return idp!;
    },
  };
}

/**
 * For the enclosing describe block: a test identity provider with `people`, and a hub (embedded
 * database) served on a free loopback port with a browser for it (browser.ts), whose `sso.oidc`
 * is the provider's client with `oidc` added. Read `base`, `browser` and `idp` inside tests.
 */
export function useSsoBrowserHub(
  people: IdpPerson[],
  oidc: Record<string, unknown>,
): BrowserHub & { readonly idp: TestIdp } {
  let idp: TestIdp | undefined;
  let port = 0;
  beforeAll(async () => {
    port = await freePort();
    idp = await startTestIdp({ redirectUri: `http://127.0.0.1:${port}/auth/sso/callback`, people });
  });
  afterAll(async () => idp?.close());
  const served = useBrowserHub(
    () => ({
      config: {
        server: { host: '127.0.0.1', port },
        sso: { oidc: { ...oidcClient(idp!), ...oidc } },
      },
    }),
    EMBEDDED_DRIVER,
    () => port,
  );
  return {
    t: served.t,
    get base() {
      return served.base;
    },
    get browser() {
      return served.browser;
    },
    get idp() {
      return idp!;
    },
  };
}
