/**
 * The public single sign-on routes. `GET /login` (optionally `?tenant=`) links to
 * `GET /auth/sso/start`, which records the sign-in (a row of hashes; the secrets ride in a
 * short-lived HttpOnly, SameSite=Lax cookie) and redirects to the provider. `GET
 * /auth/sso/callback` checks everything, maps the person to a hub user and answers a page with a
 * one-time `hbi_` code for the desktop app. Every refusal is an HTML page with a 4xx status (503
 * when the provider or the database cannot answer), never a code. The callback is throttled like
 * failed authentication.
 */
import { ssoAuditEvent } from './audit-events.ts';
import { scopedStore } from '../../kernel/audit.ts';
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { HubConfig } from '../../kernel/config/load.ts';
import { HttpError } from '../../kernel/errors.ts';
import { newId, sha256Hex } from '../../kernel/identity/secrets.ts';
import { DEFAULT_TENANT_ID, validateTenantId } from '../../kernel/identity/tenants.ts';
import type { TenantRow } from '../../kernel/identity/tables.ts';
import { toUserRecord } from '../../kernel/identity/users.ts';
import { createPluginApp, type KernelEnv, type PluginContext } from '../../kernel/plugin.ts';
import { createInvitesService, joinLink, publicBaseUrl } from '../invites/index.ts';
import { allowed, groupsOf, userForSignIn } from './accounts.ts';
import { providerName, type SsoConfig } from './config.ts';
import { SignInRefused, type RelyingParty } from './oidc.ts';
import { COOKIE, decode, encode, SIGN_IN_MS } from './pending.ts';
import { asRefusal, Refusal } from './refusal.ts';
import { loginPage, refusalPage, signedInPage, type Page } from './pages.ts';
import { ssoLoginsTable } from './tables.ts';

export function redirectUri(server: HubConfig['server']): string {
  return `${publicBaseUrl(server)}/auth/sso/callback`;
}

export function publicSsoRoutes(
  ctx: PluginContext<SsoConfig>,
  rp: RelyingParty,
): ReturnType<typeof createPluginApp> {
  const invites = createInvitesService({ identity: ctx.identity, clock: ctx.clock });
  const throttleKey = (c: Context<KernelEnv>) => `${ctx.clientIp(c)}:sso`;
  const section = () => {
    const config = ctx.config();
    if (!config)
      throw new Refusal(404, 'Single sign-on is off', 'This hub has no single sign-on.', false);
    return config;
  };

  /** The tenant named by `?tenant=` (default tenant without it); it must exist. */
  async function tenantOf(c: Context<KernelEnv>): Promise<TenantRow> {
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
    const tenant = await ctx.identity.tenants.get(id);
    if (!tenant) throw new Refusal(404, 'Unknown hub', `tenant: no tenant "${id}" on this hub.`);
    return tenant;
  }

  /** The path the hub is served under (`server.publicUrl`'s, e.g. `/team`), or ''. */
  const prefix = () => new URL(publicBaseUrl(ctx.hubConfig().server)).pathname.replace(/\/+$/, '');
  const cookiePath = () => `${prefix()}/auth/sso`;
  const secure = () => redirectUri(ctx.hubConfig().server).startsWith('https:');

  /** Runs a handler; refusals and failures become pages, never a JSON body or a 500. */
  async function answer(c: Context<KernelEnv>, work: () => Promise<Response | Page>) {
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
      const retry = refusal.retry ? loginHref(c.req.query('tenant')) : null;
      const page = refusalPage(refusal.title, refusal.reason, retry);
      const headers: Record<string, string> = { ...page.headers };
      if (error instanceof HttpError) Object.assign(headers, error.headers);
      return c.body(page.html, refusal.status, headers);
    }
  }

  const loginHref = (tenant: string | undefined) =>
    `${prefix()}/login${tenant ? `?tenant=${encodeURIComponent(tenant)}` : ''}`;

  return createPluginApp()
    .get('/login', (c) =>
      answer(c, async () => {
        const config = section();
        const tenant = await tenantOf(c);
        const start =
          tenant.id === DEFAULT_TENANT_ID
            ? `${prefix()}/auth/sso/start`
            : `${prefix()}/auth/sso/start?tenant=${encodeURIComponent(tenant.id)}`;
        return loginPage(tenant.name, providerName(config.oidc), start);
      }),
    )
    .get('/auth/sso/start', (c) =>
      answer(c, async () => {
        section();
        const tenant = await tenantOf(c);
        const started = await rp.start(redirectUri(ctx.hubConfig().server));
        const key = newId();
        const store = ctx.storage(tenant.id);
        const now = ctx.clock.now();
        // Sign-ins abandoned at the provider are swept by the next start.
        await store.table(ssoLoginsTable).deleteWhere({ expiresAt: { lt: now.toISOString() } });
        await store.table(ssoLoginsTable).insert({
          id: newId(),
          keyHash: await sha256Hex(key),
          stateHash: await sha256Hex(started.state),
          expiresAt: new Date(now.getTime() + SIGN_IN_MS).toISOString(),
        });
        setCookie(
          c,
          COOKIE,
          encode({ tenant: tenant.id, key, verifier: started.verifier, nonce: started.nonce }),
          {
            path: cookiePath(),
            httpOnly: true,
            sameSite: 'Lax',
            secure: secure(),
            maxAge: SIGN_IN_MS / 1000,
          },
        );
        c.header('Cache-Control', 'no-store');
        c.header('Referrer-Policy', 'no-referrer');
        return c.redirect(started.url.href, 302);
      }),
    )
    .get('/auth/sso/callback', (c) =>
      answer(c, async () => {
        const config = section();
        await ctx.throttle.assertNotBlocked(throttleKey(c));
        const pending = decode(getCookie(c, COOKIE));
        deleteCookie(c, COOKIE, { path: cookiePath(), secure: secure() });
        const failed = async (status: 400 | 403, title: string, reason: string) => {
          await ctx.throttle.recordFailure(throttleKey(c));
          return new Refusal(status, title, reason);
        };
        /** `sso.refused` in the sign-in's tenant: whom the provider named, if it got that far. */
        const refusedEvent = (tenantId: string, reason: string, claims?: Record<string, unknown>) =>
          ctx.audit.record(
            scopedStore(ctx.storage(tenantId), c.get('auditScope')),
            ssoAuditEvent(
              'sso.refused',
              {
                id: typeof claims?.sub === 'string' ? claims.sub : '',
                name: String(claims?.[config.oidc.usernameClaim] ?? ''),
                provider: config.oidc.issuer,
              },
              { reason },
            ),
          );
        if (!pending)
          throw await failed(
            400,
            'Sign-in expired',
            'This browser has no sign-in in progress (it expired, or cookies are blocked). Start again.',
          );
        // The sign-in's tenant, named by its pending login: the store names this request too.
        const store = scopedStore(ctx.storage(pending.tenant), c.get('auditScope'));
        // The first callback consumes the sign-in: a replayed or forged state finds nothing.
        const login = await store
          .table(ssoLoginsTable)
          .findOne({ keyHash: await sha256Hex(pending.key) });
        // Of two callbacks racing with one cookie, only the one whose delete removed the row goes on.
        const consumed = login ? await store.table(ssoLoginsTable).delete(login.id) : false;
        const state = c.req.query('state') ?? '';
        const now = ctx.clock.now();
        if (
          !login ||
          !consumed ||
          !state ||
          login.stateHash !== (await sha256Hex(state)) ||
          Date.parse(login.expiresAt) <= now.getTime()
        )
          throw await failed(
            400,
            'Sign-in refused',
            'The sign-in response does not belong to a sign-in started in this browser, or was used already. Start again.',
          );
        const idpError = c.req.query('error');
        if (idpError) {
          const detail = c.req.query('error_description');
          throw new Refusal(
            400,
            'Sign-in cancelled',
            `${providerName(config.oidc)} refused the sign-in (${idpError}${detail ? `: ${detail}` : ''}).`,
          );
        }
        const callbackUrl = new URL(redirectUri(ctx.hubConfig().server));
        callbackUrl.search = new URL(c.req.url).search;
        let claims: Record<string, unknown>;
        try {
          claims = await rp.finish(callbackUrl, { ...pending, state });
        } catch (error) {
          if (error instanceof SignInRefused) {
            await refusedEvent(pending.tenant, error.message);
            throw await failed(
              400,
              'Sign-in refused',
              `The sign-in failed a check: ${error.message}.`,
            );
          }
          throw error;
        }
        const groups = groupsOf(claims, config.oidc.groupsClaim);
        if (!allowed(config.oidc, groups)) {
          await refusedEvent(pending.tenant, 'not in an allowed group', claims);
          throw new Refusal(
            403,
            'Not allowed on this hub',
            `Your account is not in a group allowed on this hub (${config.oidc.allowedGroups.join(', ')}). Ask the hub administrator.`,
            false,
          );
        }
        const tenant = await ctx.identity.tenants.get(pending.tenant);
        if (!tenant)
          throw new Refusal(404, 'Unknown hub', `tenant: no tenant "${pending.tenant}".`);
        const issued = await store.transaction(async (tx) => {
          const { user } = await userForSignIn(
            ctx.identity,
            tx,
            config.oidc,
            claims,
            now.toISOString(),
          );
          await ctx.audit.record(
            tx,
            ssoAuditEvent('sso.signed_in', {
              id: user.id,
              name: user.name,
              provider: config.oidc.issuer,
            }),
          );
          return invites.issue(tx, user, 1, {
            lifetimeMs: config.codeMinutes * 60_000,
            tokenTtlDays: config.tokenTtlDays,
          });
        });
        await ctx.throttle.reset(throttleKey(c));
        const baseUrl = publicBaseUrl(ctx.hubConfig().server);
        const record = toUserRecord(issued.user);
        const link = joinLink({
          baseUrl,
          user: record,
          expiresAt: issued.invitation.expiresAt,
          secret: issued.secret,
          hubName: tenant.name,
        });
        const query = new URL(link).search.slice(1);
        return signedInPage({
          hubName: tenant.name,
          userName: record.name,
          role: record.role,
          access: new URLSearchParams(query).get('access') ?? '',
          hubAddress: baseUrl,
          deepLink: `harborclient://team-hub/join?${query}&code=${encodeURIComponent(issued.secret)}`,
          joinLink: link,
          expiresAt: issued.invitation.expiresAt,
          tokenTtlDays: config.tokenTtlDays,
        });
      }),
    );
}
