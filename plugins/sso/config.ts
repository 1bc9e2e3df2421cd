/**
 * The `sso` section of server.yaml: one OpenID Connect identity provider the hub signs people in
 * with, and the tenants that admit it. The section's absence means single sign-on is off.
 * Validated like every section: an `http://` issuer only on a loopback address, groups, access
 * lists and tenant ids well formed. A listed tenant that does not exist is refused at sign-in,
 * not here: tenants are created while the hub runs.
 */
import { z } from 'zod';
import { secret } from '../../kernel/config/secrets.ts';
import { perEntityList } from '../../kernel/identity/access.ts';
import { DEFAULT_TENANT_ID } from '../../kernel/identity/tenants.ts';
import { MAX_TOKEN_DAYS } from '../accounts/index.ts';

const list = z.array(z.string().trim().min(1, 'must not be empty')).default([]);

/** What a signed-in person may use besides their role: the lists of `user create`, and LLM. */
const accessSchema = z.strictObject({
  ...perEntityList(() => list),
  llmModels: list,
  llmAccess: z.boolean().optional(),
});

export type SsoAccess = z.output<typeof accessSchema>;

const EMPTY_ACCESS: SsoAccess = {
  ...perEntityList(() => []),
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

/**
 * Who may sign in to one tenant, and as what: `sso.oidc`'s for the default tenant, an entry of
 * `sso.tenants` for another. Nothing is inherited between tenants, so a group that makes admins
 * of one tenant is never an admin group of another.
 */
const admissionFields = {
  /** Only members of one of these groups may sign in; empty: anyone the IdP authenticates. */
  allowedGroups: list,
  /** Members of one of these groups get role admin; everyone else role user. */
  adminGroups: list,
  /** Access of a new user (role user). */
  access: accessSchema.default(EMPTY_ACCESS),
  /** Access per group, added to `access`; when set, applied at every sign-in. */
  groupAccess: z.record(z.string().trim().min(1), accessSchema).default({}),
};

const oidcSchema = z.strictObject({
  /** Discovery document at `<issuer>/.well-known/openid-configuration`. */
  issuer: issuerSchema,
  clientId: z.string().trim().min(1, 'must not be empty'),
  /** Use `${ENV}`; omit for a public client (PKCE only). */
  clientSecret: secret(z.string().min(1, 'must not be empty').optional()),
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
  /** The default tenant's rules. */
  ...admissionFields,
  /** The provider's name on the login page ("Sign in with …"). @default the issuer's host */
  displayName: z.string().trim().min(1).max(100).optional(),
});

/** A tenant id as the hub makes them (`validateTenantId`). */
const TENANT_KEY = /^[A-Za-z0-9_-]{1,64}$/;

/** `sso.tenants`: the other tenants that admit single sign-on, each with its own rules. */
const tenantsSchema = z
  .record(z.string(), z.strictObject(admissionFields))
  .default({})
  .superRefine((tenants, ctx) => {
    for (const id of Object.keys(tenants)) {
      if (!TENANT_KEY.test(id))
        ctx.addIssue({
          code: 'custom',
          path: [id],
          message: 'must be a tenant id (1 to 64 letters, digits, underscores or hyphens)',
        });
      else if (id === DEFAULT_TENANT_ID)
        ctx.addIssue({
          code: 'custom',
          path: [id],
          message:
            "is the default tenant, whose rules are sso.oidc's (allowedGroups, adminGroups, access, groupAccess); sso.defaultTenant: false turns single sign-on off there",
        });
    }
  });

export const ssoSchema = z
  .strictObject({
    oidc: oidcSchema,
    /** Whether the default tenant admits single sign-on, under `oidc`'s rules. @default true */
    defaultTenant: z.boolean().default(true),
    /** Other tenants that admit single sign-on; a tenant not listed refuses it. */
    tenants: tenantsSchema,
    /** Days a token issued through single sign-on works before the person signs in again. */
    tokenTtlDays: z.coerce.number().int().min(1).max(MAX_TOKEN_DAYS).default(30),
    /** Minutes the one-time `hbi_` code of the result page stays usable. @default 10 */
    codeMinutes: z.coerce.number().int().min(1).max(60).default(10),
  })
  .optional();

export type SsoConfig = z.output<typeof ssoSchema>;
export type OidcConfig = NonNullable<SsoConfig>['oidc'];
/** Who may sign in to one tenant, and as what. */
export type TenantRules = Pick<
  OidcConfig,
  'allowedGroups' | 'adminGroups' | 'access' | 'groupAccess'
>;

/**
 * The rules of a tenant that admits single sign-on, or null: the default tenant unless
 * `defaultTenant` is false, another tenant only when `tenants` names it.
 */
export function tenantRules(config: NonNullable<SsoConfig>, tenantId: string): TenantRules | null {
  if (tenantId === DEFAULT_TENANT_ID) return config.defaultTenant ? config.oidc : null;
  return Object.hasOwn(config.tenants, tenantId) ? config.tenants[tenantId]! : null;
}

/** The issuer of the `sso` section in a whole config (the CLI's), or null without one. */
export const configuredIssuer = (config: object): string | null =>
  (config as { sso?: SsoConfig }).sso?.oidc.issuer ?? null;

/** The provider's name shown to people. */
export const providerName = (oidc: OidcConfig): string =>
  oidc.displayName ?? new URL(oidc.issuer).host;
