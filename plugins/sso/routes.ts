/**
 * The public single sign-on routes. `GET /login` (optionally `?tenant=`) links to
 * `GET /auth/sso/start`, which keeps the sign-in in a signed, short-lived HttpOnly, SameSite=Lax
 * cookie (nothing is written) and redirects to the provider. `GET /auth/sso/callback` checks
 * everything, maps the person to a hub user and answers a page with a one-time `hbi_` code for
 * the desktop app (callback.ts). A tenant signs people in only when the `sso` section admits it
 * (`tenantRules`): the three routes ask each time, so a reload that removes a tenant refuses its
 * sign-ins already in progress. Every refusal is an HTML page with a 4xx status (503 when the
 * provider or the database cannot answer), never a code.
 */
import type { Context } from 'hono';
import { setCookie } from 'hono/cookie';
import type { HubConfig } from '../../kernel/config/load.ts';
import { HttpError } from '../../kernel/errors.ts';
import { sha256Hex } from '../../kernel/identity/secrets.ts';
import type { TenantRow, UserRow } from '../../kernel/identity/tables.ts';
import { DEFAULT_TENANT_ID, validateTenantId } from '../../kernel/identity/tenants.ts';
import { createPluginApp, type KernelEnv, type PluginContext } from '../../kernel/plugin.ts';
import { createInvitesService, publicBaseUrl } from '../invites/index.ts';
import { finishSignIn } from './callback.ts';
import { providerName, tenantRules, type SsoConfig, type TenantRules } from './config.ts';
import { createCookieKeys } from './cookie-key.ts';
import { isLinkCode, LINK_NOT_VALID, type LinkingService } from './linking.ts';
import { SignInRefused, type RelyingParty } from './oidc.ts';
import { loginPage, refusalPage, type Page } from './pages.ts';
import { COOKIE, encode, SIGN_IN_MS } from './pending.ts';
import { asRefusal, notAdmitted, Refusal } from './refusal.ts';

export function redirectUri(server: HubConfig['server']): string {
  return `${publicBaseUrl(server)}/auth/sso/callback`;
}

/** What the public routes share: the plugin's context, the provider, links and invites, cookie keys. */
interface Sso {
  readonly ctx: PluginContext<SsoConfig>;
  readonly rp: RelyingParty;
  readonly linking: LinkingService;
  readonly invites: ReturnType<typeof createInvitesService>;
  readonly keys: ReturnType<typeof createCookieKeys>;
}

export function publicSsoRoutes(
  ctx: PluginContext<SsoConfig>,
  rp: RelyingParty,
  linking: LinkingService,
): ReturnType<typeof createPluginApp> {
  const sso: Sso = {
    ctx,
    rp,
    linking,
    invites: createInvitesService({ identity: ctx.identity, clock: ctx.clock }),
    keys: createCookieKeys(ctx),
  };
  return createPluginApp()
    .get('/login', (c) => answer(ctx, c, () => loginAnswer(sso, c)))
    .get('/auth/sso/start', (c) => answer(ctx, c, () => startSignIn(sso, c)))
    .get('/auth/sso/callback', (c) => {
      let tenant: string | undefined;
      return answer(
        ctx,
        c,
        () =>
          finishSignIn(c, section(ctx), {
            ctx,
            rp,
            invites: sso.invites,
            keys: sso.keys,
            linking,
            cookie: cookie(ctx),
            redirectUri: redirectUri(ctx.hubConfig().server),
            onTenant: (id) => (tenant = id),
          }),
        () => tenant,
      );
    });
}

function section(ctx: PluginContext<SsoConfig>): NonNullable<SsoConfig> {
  const config = ctx.config();
  if (!config)
    throw new Refusal(404, 'Single sign-on is off', 'This hub has no single sign-on.', false);
  return config;
}

/**
 * The tenant `?tenant=` names (the default tenant without it) with its rules, when the section
 * admits it; a tenant that is not admitted gets the refusal of one that does not exist.
 */
async function admitted(
  ctx: PluginContext<SsoConfig>,
  c: Context<KernelEnv>,
  config: NonNullable<SsoConfig>,
): Promise<{ tenant: TenantRow; rules: TenantRules }> {
  const raw = c.req.query('tenant');
  let id = DEFAULT_TENANT_ID;
  if (raw !== undefined && raw.trim() !== '') {
    try {
      id = validateTenantId(raw);
    } catch (error) {
      throw new Refusal(400, 'Unknown hub', `tenant: ${(error as Error).message}`, false);
    }
  }
  if (id !== DEFAULT_TENANT_ID && !ctx.hubConfig().multitenancy.enabled)
    throw new Refusal(400, 'Unknown hub', 'tenant: this hub serves only its default tenant.');
  const rules = tenantRules(config, id);
  const tenant = rules ? await ctx.identity.tenants.get(id) : null;
  if (!rules || !tenant) throw notAdmitted(id);
  return { tenant, rules };
}

/**
 * The one-time link code `?link=` names, with the user it links, or null without one. A code
 * that does not work is counted like a failed callback (the same address block applies).
 */
async function linkOf(
  { ctx, linking }: Sso,
  c: Context<KernelEnv>,
  tenant: TenantRow,
): Promise<{ code: string; user: UserRow } | null> {
  const code = c.req.query('link');
  if (code === undefined) return null;
  const key = `${ctx.clientIp(c)}:sso`;
  await ctx.throttle.assertNotBlocked(key);
  const user = isLinkCode(code)
    ? await linking.userOfCode(ctx.storage(tenant.id), sha256Hex(code))
    : null;
  if (!user) {
    await ctx.throttle.recordFailure(key);
    throw new Refusal(400, 'Link not valid', LINK_NOT_VALID, false);
  }
  return { code, user };
}

/** The path the hub is served under (`server.publicUrl`'s, e.g. `/team`), or ''. */
const prefix = (ctx: PluginContext<SsoConfig>) =>
  new URL(publicBaseUrl(ctx.hubConfig().server)).pathname.replace(/\/+$/, '');
const cookie = (ctx: PluginContext<SsoConfig>) => ({
  path: `${prefix(ctx)}/auth/sso`,
  secure: redirectUri(ctx.hubConfig().server).startsWith('https:'),
});
const loginHref = (ctx: PluginContext<SsoConfig>, tenant: string | undefined) =>
  `${prefix(ctx)}/login${tenant && tenant !== DEFAULT_TENANT_ID ? `?tenant=${encodeURIComponent(tenant)}` : ''}`;

/**
 * Runs a handler; refusals and failures become pages, never a JSON body or a 500. `tenant`
 * names the tenant a "Try again" link returns to.
 */
async function answer(
  ctx: PluginContext<SsoConfig>,
  c: Context<KernelEnv>,
  work: () => Promise<Response | Page>,
  tenant: () => string | undefined = () => c.req.query('tenant'),
) {
  try {
    const result = await work();
    if (result instanceof Response) return result;
    return c.body(result.html, 200, result.headers);
  } catch (error) {
    const refusal = asRefusal(error);
    if (
      !(error instanceof Refusal) &&
      !(error instanceof HttpError) &&
      !(error instanceof SignInRefused)
    )
      c.get('log').error('Single sign-on could not complete', {
        error: error instanceof Error ? error.message : String(error),
      });
    const page = refusalPage({
      title: refusal.title,
      reason: refusal.reason,
      retry: refusal.retry ? loginHref(ctx, tenant()) : null,
      ...(refusal.retryLabel ? { retryLabel: refusal.retryLabel } : {}),
      home: `${prefix(ctx)}/`,
    });
    const headers: Record<string, string> = { ...page.headers };
    if (error instanceof HttpError) Object.assign(headers, error.headers);
    return c.body(page.html, refusal.status, headers);
  }
}

/** `GET /login`: the page with the button that starts the sign-in. */
async function loginAnswer(sso: Sso, c: Context<KernelEnv>): Promise<Page> {
  const { ctx } = sso;
  const config = section(ctx);
  const { tenant } = await admitted(ctx, c, config);
  const link = await linkOf(sso, c, tenant);
  const query = new URLSearchParams();
  if (tenant.id !== DEFAULT_TENANT_ID) query.set('tenant', tenant.id);
  if (link) query.set('link', link.code);
  const start = `${prefix(ctx)}/auth/sso/start${query.size > 0 ? `?${query.toString()}` : ''}`;
  // Never the tenant's name: anyone could learn which tenants a hub serves by trying ids.
  // The name is shown once the person has signed in.
  return loginPage({
    tenantId: tenant.id === DEFAULT_TENANT_ID ? null : tenant.id,
    provider: providerName(config.oidc),
    startHref: start,
    home: `${prefix(ctx)}/`,
    linkTo: link?.user.name ?? null,
  });
}

/** `GET /auth/sso/start`: the sign-in kept in a signed cookie, and off to the provider. */
async function startSignIn(sso: Sso, c: Context<KernelEnv>): Promise<Response> {
  const { ctx, rp, keys } = sso;
  const { tenant } = await admitted(ctx, c, section(ctx));
  const link = await linkOf(sso, c, tenant);
  const started = await rp.start(redirectUri(ctx.hubConfig().server));
  const expiresAt = ctx.clock.now().getTime() + SIGN_IN_MS;
  const value = await encode(
    {
      tenant: tenant.id,
      state: started.state,
      verifier: started.verifier,
      nonce: started.nonce,
      expiresAt,
      ...(link ? { link: link.code } : {}),
    },
    await keys.key(),
  );
  setCookie(c, COOKIE, value, {
    ...cookie(ctx),
    httpOnly: true,
    sameSite: 'Lax',
    maxAge: SIGN_IN_MS / 1000,
  });
  c.header('Cache-Control', 'no-store');
  c.header('Referrer-Policy', 'no-referrer');
  return c.redirect(started.url.href, 302);
}
