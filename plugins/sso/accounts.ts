/**
 * From a verified sign-in to a hub user: the user linked to the provider's issuer and subject,
 * or a new one (just in time, by the same rules as `user create`), with role and access from
 * the groups claim applied at every sign-in (the role only when `adminGroups` is set, so a role an
 * admin gave stays where the provider says nothing about roles). A name already taken by another account is never
 * taken over: the new account gets the first free `<name>-2`, `<name>-3`, … instead.
 */
import { HttpError } from '../../kernel/errors.ts';
import { ACCESS_FIELDS } from '../../kernel/identity/access.ts';
import type { Identity } from '../../kernel/identity/identity.ts';
import { newId } from '../../kernel/identity/secrets.ts';
import { usersTable, type UserRow } from '../../kernel/identity/tables.ts';
import type { Role, UserInput } from '../../kernel/identity/users.ts';
import type { Store } from '../../kernel/storage/contract.ts';
import type { OidcConfig, SsoAccess, TenantRules } from './config.ts';
import { groupsOf } from './groups.ts';
import { SignInRefused } from './oidc.ts';
import { ssoLinksTable } from './tables.ts';

const isHttpError = (error: unknown): error is HttpError => error instanceof HttpError;

/** Suffixes tried after a taken name before the sign-in is refused. */
const MAX_SUFFIX = 50;

/** The person's issuer and subject: what links and blocks are keyed by. */
export function identityOf(
  claims: Record<string, unknown>,
  oidc: OidcConfig,
): { issuer: string; subject: string } {
  return {
    issuer: typeof claims.iss === 'string' ? claims.iss : oidc.issuer,
    subject: typeof claims.sub === 'string' ? claims.sub : '',
  };
}

/** Role and access for these groups: `access` plus every matching `groupAccess` entry. */
export function grantsFor(
  rules: TenantRules,
  groups: readonly string[],
): UserInput & { role: Role } {
  const role: Role = rules.adminGroups.some((g) => groups.includes(g)) ? 'admin' : 'user';
  const sources: SsoAccess[] = [
    rules.access,
    ...groups.flatMap((g) => (rules.groupAccess[g] ? [rules.groupAccess[g]] : [])),
  ];
  const grants: UserInput & { role: Role } = { role };
  for (const field of ACCESS_FIELDS) {
    // Admins have every entity by their role and may hold no entity list.
    if (role === 'admin' && field !== 'llmModels') continue;
    const union = [...new Set(sources.flatMap((s) => s[field]))];
    grants[field] = union.includes('*') ? ['*'] : union;
  }
  if (sources.some((s) => s.llmAccess !== undefined))
    grants.llmAccess = sources.some((s) => s.llmAccess === true);
  return grants;
}

/** The name the provider gives the person, or a refusal naming the missing claim. */
function nameClaim(oidc: OidcConfig, claims: Record<string, unknown>): string {
  const raw = claims[oidc.usernameClaim];
  if (typeof raw !== 'string' || !raw.trim())
    throw new SignInRefused(
      `the identity provider sent no "${oidc.usernameClaim}" claim to name the hub user (sso.oidc.usernameClaim)`,
    );
  return raw.trim();
}

async function createWithFreeName(
  identity: Identity,
  tx: Store,
  name: string,
  grants: UserInput & { role: Role },
): Promise<UserRow> {
  const users = tx.table(usersTable);
  for (let n = 1; n <= MAX_SUFFIX; n += 1) {
    const candidate = n === 1 ? name : `${name}-${n}`;
    if (await users.findOne({ nameKey: candidate.toLowerCase() })) continue;
    try {
      return await identity.users.create(tx, { ...grants, name: candidate });
    } catch (error) {
      if (isHttpError(error) && error.status === 400 && /access/i.test(error.message))
        throw new HttpError(
          503,
          `The hub's single sign-on access settings for this tenant (sso.oidc or sso.tenants) name something it cannot grant (${error.message}).`,
        );
      if (isHttpError(error))
        throw new SignInRefused(`the provider's name "${name}" is not a valid hub user name`);
      throw error;
    }
  }
  throw new SignInRefused(`every name from "${name}" to "${name}-${MAX_SUFFIX}" is taken`);
}

/**
 * The hub user for this sign-in, created or updated with the tenant's rules, inside `tx` (a store
 * of that tenant). `created` tells whether the person had not signed in before.
 */
export async function userForSignIn(
  identity: Identity,
  tx: Store,
  oidc: OidcConfig,
  rules: TenantRules,
  claims: Record<string, unknown>,
  now: string,
): Promise<{ user: UserRow; created: boolean }> {
  const { issuer, subject } = identityOf(claims, oidc);
  const grants = grantsFor(rules, groupsOf(claims, oidc.groupsClaim) ?? []);
  const links = tx.table(ssoLinksTable);
  const link = await links.findOne({ issuer, subject });
  if (link) {
    await identity.users.lockHuman(tx, link.userId);
    // Role at every sign-in; access lists only when groups decide them (else an admin's edits stay).
    const fromGroups = Object.keys(rules.groupAccess).length > 0;
    // Without adminGroups the provider says nothing about roles: a role set by an admin stays.
    const patch: UserInput = fromGroups ? { ...grants } : { role: grants.role };
    if (rules.adminGroups.length === 0) {
      delete patch.role;
      // Entity lists are refused for admins: an admin promoted by hand keeps full access.
      const current = await tx.table(usersTable).get(link.userId);
      if (current?.role === 'admin')
        for (const field of ACCESS_FIELDS) if (field !== 'llmModels') delete patch[field];
    }
    const user = await identity.users.update(tx, link.userId, patch).catch((error: unknown) => {
      if (isHttpError(error) && error.status === 400)
        throw new HttpError(
          503,
          `The hub's single sign-on access settings for this tenant (sso.oidc or sso.tenants) name something it cannot grant (${error.message}).`,
        );
      throw error;
    });
    await links.update(link.id, { lastSignInAt: now });
    return { user, created: false };
  }
  const user = await createWithFreeName(identity, tx, nameClaim(oidc, claims), grants);
  await links.insert({
    id: newId(),
    issuer,
    subject,
    userId: user.id,
    createdAt: now,
    lastSignInAt: now,
  });
  return { user, created: true };
}
