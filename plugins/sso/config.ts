/**
 * The `sso` section of server.yaml: one OpenID Connect identity provider the hub signs people in
 * with. The section's absence means single sign-on is off. Validated like every section: an
 * `http://` issuer only on a loopback address, groups and access lists well formed.
 */
import { z } from 'zod';

const list = z.array(z.string().trim().min(1, 'must not be empty')).default([]);

/** What a signed-in person may use besides their role: the lists of `user create`, and LLM. */
const accessSchema = z.strictObject({
  collectionAccess: list,
  environmentAccess: list,
  snippetAccess: list,
  liveServerAccess: list,
  livePageAccess: list,
  llmModels: list,
  llmAccess: z.boolean().optional(),
});

export type SsoAccess = z.output<typeof accessSchema>;

const EMPTY_ACCESS: SsoAccess = {
  collectionAccess: [],
  environmentAccess: [],
  snippetAccess: [],
  liveServerAccess: [],
  livePageAccess: [],
  llmModels: [],
};

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Whether a URL's host is this machine (an `http://` issuer is allowed only there). */
export function isLoopbackUrl(url: URL): boolean {
  return LOOPBACK.has(url.hostname) || /^127(\.\d{1,3}){3}$/.test(url.hostname);
}

/** The URL, or null when it is not one (its own check reports that). */
const urlOf = (raw: string): URL | null => (URL.canParse(raw) ? new URL(raw) : null);

const issuerSchema = z
  .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
  .refine((raw) => {
    const url = urlOf(raw);
    return !url || url.protocol === 'https:' || isLoopbackUrl(url);
  }, 'must use https:// (http:// is allowed only on a loopback address such as 127.0.0.1)')
  .refine((raw) => {
    const url = urlOf(raw);
    return !url || (!url.search && !url.hash);
  }, 'must not have a query or fragment');

const oidcSchema = z.strictObject({
  /** Discovery document at `<issuer>/.well-known/openid-configuration`. */
  issuer: issuerSchema,
  clientId: z.string().trim().min(1, 'must not be empty'),
  /** Use `${ENV}`; omit for a public client (PKCE only). */
  clientSecret: z.string().min(1, 'must not be empty').optional(),
  /** @default [openid, profile, email] */
  scopes: z
    .array(
      z
        .string()
        .trim()
        .regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/, 'must be a scope token'),
    )
    .default(['openid', 'profile', 'email'])
    .refine((scopes) => scopes.includes('openid'), 'must include openid'),
  /** The claim that becomes the hub user's name. @default preferred_username */
  usernameClaim: z.string().trim().min(1).default('preferred_username'),
  /** The claim listing the person's groups. @default groups */
  groupsClaim: z.string().trim().min(1).default('groups'),
  /** Only members of one of these groups may sign in; empty: anyone the IdP authenticates. */
  allowedGroups: list,
  /** Members of one of these groups get role admin; everyone else role user. */
  adminGroups: list,
  /** Access of a new user (role user). */
  access: accessSchema.default(EMPTY_ACCESS),
  /** Access per group, added to `access`; when set, applied at every sign-in. */
  groupAccess: z.record(z.string().trim().min(1), accessSchema).default({}),
  /** The provider's name on the login page ("Sign in with …"). @default the issuer's host */
  displayName: z.string().trim().min(1).max(100).optional(),
});

export const ssoSchema = z
  .strictObject({
    oidc: oidcSchema,
    /** Days a token issued through single sign-on works before the person signs in again. */
    tokenTtlDays: z.coerce.number().int().min(1).max(3650).default(30),
    /** Minutes the one-time `hbi_` code of the result page stays usable. @default 10 */
    codeMinutes: z.coerce.number().int().min(1).max(60).default(10),
  })
  .optional();

export type SsoConfig = z.output<typeof ssoSchema>;
export type OidcConfig = NonNullable<SsoConfig>['oidc'];

/** The provider's name shown to people. */
export const providerName = (oidc: OidcConfig): string =>
  oidc.displayName ?? new URL(oidc.issuer).host;
