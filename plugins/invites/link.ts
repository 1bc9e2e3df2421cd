/**
 * Join links: `<base>/join?url=<base>&name=…&role=…&exp=…[&hub=…][&access=…][&tenant=…]#code=<secret>`.
 * The secret rides in the fragment, which browsers never send to a server. `tenant` names the
 * invitation's tenant when it is not the default one, so the page asks that tenant about it. The CLI builds these links;
 * the `/join` page reads the same query back.
 */
import { ENTITY_ACCESS_LISTS } from '../../kernel/identity/access.ts';
import { DEFAULT_TENANT_ID } from '../../kernel/identity/tenants.ts';
import type { UserRecord } from '../../kernel/identity/users.ts';

/** Links point at the hub's public address (`server.publicUrl`, else host and port). */
export { publicBaseUrl } from '../../kernel/http/hub-address.ts';

/** Checks a `--base-url`: an http(s) URL without query or fragment; returns it without a trailing `/`. */
export function parseBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new Error(
      `--base-url must be an http(s) URL such as https://hub.example.com, got "${raw}".`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`--base-url must use http or https, got "${url.protocol}".`);
  if (url.search || url.hash || url.username || url.password)
    throw new Error('--base-url must not contain credentials, a query or a fragment.');
  return url.href.replace(/\/+$/, '');
}

const listSummary = (list: readonly string[]) =>
  list.includes('*') ? 'all' : list.length === 0 ? 'none' : `${list.length} selected`;

/** A one-line summary of what the account may use, for the page (ids stay out of the link). */
export function accessSummary(user: UserRecord): string {
  const llm = `LLM: ${user.llmAccess ? 'enabled' : 'disabled'}`;
  if (user.role === 'admin') return `Full access (admin) · ${llm}`;
  return [
    ...ENTITY_ACCESS_LISTS.map((list) => `${list.heading}: ${listSummary(user[list.field])}`),
    llm,
  ].join(' · ');
}

export interface JoinLinkInput {
  baseUrl: string;
  user: UserRecord;
  expiresAt: string;
  secret: string;
  /** The hub's display name. */
  hubName?: string;
  /** The invitation's tenant; the default tenant's id adds nothing to the link. */
  tenantId?: string;
}

/** The join query without the code: what the page shows and the deep link repeats. */
export function joinQuery(input: Omit<JoinLinkInput, 'secret'>): URLSearchParams {
  const query = new URLSearchParams({
    url: input.baseUrl,
    name: input.user.name,
    role: input.user.role,
    exp: input.expiresAt,
  });
  if (input.hubName) query.set('hub', input.hubName);
  query.set('access', accessSummary(input.user));
  if (input.tenantId && input.tenantId !== DEFAULT_TENANT_ID) query.set('tenant', input.tenantId);
  return query;
}

/** The link an administrator hands to the invitee. */
export function joinLink(input: JoinLinkInput): string {
  return `${input.baseUrl}/join?${joinQuery(input).toString()}#code=${encodeURIComponent(input.secret)}`;
}
