/**
 * The groups claim: which groups the provider says the person is in, whether that admits them to
 * a tenant, and what to tell the operator when the provider sent no groups claim at all — many
 * providers send it only for a scope the hub must ask for, and without it every sign-in to a
 * tenant with `allowedGroups` would be refused as if the person were an outsider.
 */
import type { OidcConfig, TenantRules } from './config.ts';

/** The audit reason of a refusal for want of any groups claim. */
export const NO_GROUPS_CLAIM = 'the provider sent no groups claim (sso.oidc.groupsClaim)';

/**
 * The groups claim as a list of names (a single string counts as one group), or null when the
 * claims hold no such claim at all (not even an empty list).
 */
export function groupsOf(claims: Record<string, unknown>, claim: string): string[] | null {
  if (!Object.hasOwn(claims, claim)) return null;
  const value = claims[claim];
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((g): g is string => typeof g === 'string');
  return [];
}

/** Whether the person may sign in to the tenant of these rules at all. */
export function allowed(rules: TenantRules, groups: readonly string[]): boolean {
  return rules.allowedGroups.length === 0 || rules.allowedGroups.some((g) => groups.includes(g));
}

/** Whether the tenant's rules read the groups claim. */
export const usesGroups = (rules: TenantRules): boolean =>
  rules.allowedGroups.length > 0 ||
  rules.adminGroups.length > 0 ||
  Object.keys(rules.groupAccess).length > 0;

/** The operator's warning when no groups claim arrived: which keys to check. */
export const noGroupsWarning = (oidc: OidcConfig): string =>
  `Single sign-on: the identity provider sent no "${oidc.groupsClaim}" claim (sso.oidc.groupsClaim) in the ID token or the userinfo answer, so allowedGroups, adminGroups and groupAccess match nothing. Check the claim's name, and that sso.oidc.scopes (now: ${oidc.scopes.join(', ')}) asks for the scope that makes the provider send it (often "groups").`;
