/**
 * A real OpenID Provider for the single sign-on suites: `oidc-provider` in process on a free
 * loopback port, with login and consent pages of its own (oidc-idp-interactions.ts) and a store
 * per provider (oidc-idp-store.ts), PKCE required, one client registered with the hub's exact
 * redirect URI, and people with groups. `tamper` lets a test make
 * the provider's token endpoint hand out an ID token with other claims, signed with the
 * provider's own key (what a misconfigured or hostile provider would send).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { interactionPages } from './oidc-idp-interactions.ts';
import { memoryAdapter } from './oidc-idp-store.ts';

/**
 * oidc-provider warns at import that Node 20 is not a release it supports. The hub supports Node
 * 20 and these suites pass on it, so that one line is dropped; any other warning still shows.
 */
async function loadProvider(): Promise<typeof import('oidc-provider').default> {
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (String(args[0]).startsWith('oidc-provider WARNING: Unsupported runtime')) return;
    warn(...args);
  };
  try {
    return (await import('oidc-provider')).default;
  } finally {
    console.warn = warn;
  }
}

export interface IdpPerson {
  /** The login typed on the provider's login page, and the subject. */
  login: string;
  username?: string;
  email?: string;
  groups?: string[];
}

export interface TestIdp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  people: Map<string, IdpPerson>;
  /** Rewrites the claims of the next ID tokens the token endpoint issues (null: leave them). */
  tamper: ((claims: Record<string, unknown>) => Record<string, unknown>) | null;
  close(): Promise<void>;
}

/** The hub's `sso.oidc` client settings for this provider. */
export const oidcClient = (idp: TestIdp) => ({
  issuer: idp.issuer,
  clientId: idp.clientId,
  clientSecret: idp.clientSecret,
});

const b64url = (bytes: Uint8Array | string) =>
  Buffer.from(bytes).toString('base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

export async function startTestIdp(options: {
  redirectUri: string;
  people: IdpPerson[];
  clientId?: string;
  /**
   * Sends `groups` only to a client that asks for the `groups` scope, as many providers do;
   * otherwise with `profile`. @default false
   */
  groupsScope?: boolean;
}): Promise<TestIdp> {
  const keys = await crypto.subtle.generateKey(
    {
      name: 'RSASSA-PKCS1-v1_5',
      modulusLength: 2048,
      publicExponent: new Uint8Array([1, 0, 1]),
      hash: 'SHA-256',
    },
    true,
    ['sign', 'verify'],
  );
  const jwk = {
    ...(await crypto.subtle.exportKey('jwk', keys.privateKey)),
    kid: 'test-key',
    alg: 'RS256',
    use: 'sig',
  };
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = options.clientId ?? 'workspace-hub';
  const clientSecret = 'test-client-secret-0123456789';
  const people = new Map(options.people.map((p) => [p.login, structuredClone(p)]));
  const Provider = await loadProvider();
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [options.redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    jwks: { keys: [jwk] },
    pkce: { required: () => true },
    adapter: memoryAdapter(),
    features: { devInteractions: { enabled: false } },
    // Lifetimes in seconds, long enough for any suite (the defaults are functions that announce
    // themselves at every use).
    ttl: {
      AccessToken: 3600,
      AuthorizationCode: 600,
      Grant: 3600,
      IdToken: 3600,
      Interaction: 3600,
      Session: 3600,
    },
    claims: options.groupsScope
      ? { openid: ['sub'], profile: ['preferred_username'], email: ['email'], groups: ['groups'] }
      : { openid: ['sub'], profile: ['preferred_username', 'groups'], email: ['email'] },
    async findAccount(_ctx: unknown, id: string) {
      const person: IdpPerson = people.get(id) ?? { login: id };
      return {
        accountId: id,
        async claims() {
          return {
            sub: id,
            preferred_username: person.username ?? person.login,
            ...(person.email ? { email: person.email } : {}),
            groups: person.groups ?? [],
          };
        },
      };
    },
  });
  const idp: TestIdp = {
    issuer,
    clientId,
    clientSecret,
    people,
    tamper: null,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  provider.use(async (ctx, next) => {
    await next();
    const body = ctx.body as { id_token?: string } | undefined;
    if (!idp.tamper || ctx.path !== '/token' || !body?.id_token) return;
    const [header, payload] = body.id_token.split('.');
    const claims = idp.tamper(JSON.parse(Buffer.from(payload!, 'base64url').toString()));
    const signing = `${header}.${b64url(JSON.stringify(claims))}`;
    const signature = await crypto.subtle.sign(
      'RSASSA-PKCS1-v1_5',
      keys.privateKey,
      new TextEncoder().encode(signing),
    );
    body.id_token = `${signing}.${b64url(new Uint8Array(signature))}`;
  });
  const pages = interactionPages(provider);
  const callback = provider.callback();
  server.on('request', (req, res) => {
    pages(req, res)
      .then((answered) => {
        if (!answered) callback(req, res);
      })
      .catch((error: unknown) => {
        res.statusCode = 500;
        res.end(String(error));
      });
  });
  return idp;
}
