/**
 * The relying party, through `openid-client` (its only importer): discovery of the provider,
 * the authorization URL with PKCE (S256), state and nonce, and the callback's checks (state,
 * code exchange, ID token signature, issuer, audience, nonce, expiry with the library's 30 s
 * tolerance). The discovered configuration is kept until the section changes.
 */
import * as client from 'openid-client';
import { isLoopbackUrl, type OidcConfig } from './config.ts';

/** Milliseconds one call to the provider may take. */
const PROVIDER_TIMEOUT_S = 10;

/** The provider could not be reached or answered nonsense: the hub cannot sign anyone in now. */
export class ProviderUnavailable extends Error {}
/** The provider or the browser sent something that fails a check: this sign-in is refused. */
export class SignInRefused extends Error {}
/** The section does not match what the provider says of itself: no sign-in until it is fixed. */
export class ProviderMisconfigured extends Error {}

export interface StartedSignIn {
  url: URL;
  state: string;
  nonce: string;
  verifier: string;
}

export function createRelyingParty(oidc: () => OidcConfig) {
  let cached: { key: string; config: Promise<client.Configuration> } | null = null;

  function configuration(): Promise<client.Configuration> {
    const current = oidc();
    const key = JSON.stringify([current.issuer, current.clientId, current.clientSecret ?? null]);
    if (cached?.key === key) return cached.config;
    const issuer = new URL(current.issuer);
    const config = client
      .discovery(issuer, current.clientId, current.clientSecret, undefined, {
        timeout: PROVIDER_TIMEOUT_S,
        // openid-client refuses http:// unless told; the section allows it only on loopback.
        ...(issuer.protocol === 'http:' && isLoopbackUrl(issuer)
          ? { execute: [client.allowInsecureRequests] }
          : {}),
      })
      .then((found) => {
        // Discovery accepts an issuer that differs only as URLs do (`https://idp.example.com/`
        // for `https://idp.example.com`), but ID tokens carry the provider's own spelling: links
        // and blocks are keyed by it, and one made with the configured spelling (an admin's
        // `--subject`) would never match. So the two must be the same string.
        const named = found.serverMetadata().issuer;
        if (named !== current.issuer)
          throw new ProviderMisconfigured(
            `sso.oidc.issuer is "${current.issuer}", but the provider names itself "${named}": write sso.oidc.issuer exactly as the provider's discovery document does`,
          );
        return found;
      })
      .catch((error: unknown) => {
        // Not kept: the next sign-in tries the provider again.
        if (cached?.config === config) cached = null;
        if (error instanceof ProviderMisconfigured) throw error;
        throw new ProviderUnavailable(`discovery at ${current.issuer} failed: ${describe(error)}`);
      });
    cached = { key, config };
    return config;
  }

  return {
    /** Forgets the discovered provider (the section changed). */
    reset(): void {
      cached = null;
    },

    async start(redirectUri: string): Promise<StartedSignIn> {
      const config = await configuration();
      const verifier = client.randomPKCECodeVerifier();
      const state = client.randomState();
      const nonce = client.randomNonce();
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: oidc().scopes.join(' '),
        response_type: 'code',
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state,
        nonce,
      });
      return { url, state, nonce, verifier };
    },

    /**
     * Exchanges the callback's code and checks everything; the ID token's claims, with the
     * userinfo endpoint's added (many providers send groups only there).
     */
    async finish(
      callbackUrl: URL,
      checks: { state: string; nonce: string; verifier: string },
    ): Promise<Record<string, unknown>> {
      const config = await configuration();
      let tokens;
      try {
        tokens = await client.authorizationCodeGrant(config, callbackUrl, {
          pkceCodeVerifier: checks.verifier,
          expectedState: checks.state,
          expectedNonce: checks.nonce,
          idTokenExpected: true,
        });
      } catch (error) {
        throw classify(error);
      }
      const claims = tokens.claims();
      if (!claims) throw new SignInRefused('the provider sent no ID token');
      let userinfo: Record<string, unknown> = {};
      if (config.serverMetadata().userinfo_endpoint) {
        try {
          userinfo = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
        } catch (error) {
          throw classify(error);
        }
      }
      return { ...userinfo, ...claims };
    },
  };
}

export type RelyingParty = ReturnType<typeof createRelyingParty>;

function describe(error: unknown): string {
  if (error instanceof client.ResponseBodyError)
    return `${error.error}${error.error_description ? `: ${error.error_description}` : ''}`;
  if (error instanceof client.AuthorizationResponseError)
    return `${error.error}${error.error_description ? `: ${error.error_description}` : ''}`;
  if (!(error instanceof Error)) return String(error);
  // openid-client wraps oauth4webapi's precise reason (which claim failed) as the cause.
  const cause = error.cause instanceof Error ? error.cause.message : null;
  return cause && cause !== error.message ? `${error.message} (${cause})` : error.message;
}

/** A network failure or timeout is the provider's outage; anything else refuses the sign-in. */
function classify(error: unknown): Error {
  if (
    error instanceof ProviderUnavailable ||
    error instanceof ProviderMisconfigured ||
    error instanceof SignInRefused
  )
    return error;
  const name = error instanceof Error ? error.name : '';
  const cause = error instanceof Error ? (error.cause as { code?: string } | undefined) : undefined;
  if (
    name === 'TimeoutError' ||
    name === 'AbortError' ||
    (error instanceof TypeError && /fetch/i.test(error.message)) ||
    cause?.code === 'ECONNREFUSED'
  )
    return new ProviderUnavailable(describe(error));
  if (error instanceof client.ResponseBodyError && error.status >= 500)
    return new ProviderUnavailable(describe(error));
  return new SignInRefused(describe(error));
}
