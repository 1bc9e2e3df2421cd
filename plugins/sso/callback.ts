/**
 * `GET /auth/sso/callback`: from the provider's answer to the page with the one-time code. In
 * order: the browser's signed sign-in must match the `state`; its state is recorded as used, on
 * every instance; the tenant must still admit single sign-on (a reload may have removed it since
 * the start); then the provider's answer, the code exchange and the ID token's checks, the blocked
 * people, the groups, and the user, audit event and invitation in one transaction.
 *
 * Failures count against the client address; a success counts nothing. A callback without its
 * own sign-in (guessing) counts under the bearer-auth policy. One that carries the browser's own
 * sign-in passes that block (everyone behind one proxy shares the address) and counts against a
 * key of its own whose limit is {@link OWN_SIGN_IN_SCALE} times higher: colleagues are not locked
 * out by a few cancelled sign-ins, yet a client that starts sign-ins and abandons them in a loop
 * (each one a used-state row, and with a made-up code a call to the provider) is stopped too.
 */
import type { Context } from 'hono';
import { deleteCookie, getCookie } from 'hono/cookie';
import { actingAs } from '../../kernel/storage/context.ts';
import { HttpError } from '../../kernel/errors.ts';
import { sha256Hex, timingSafeEqual } from '../../kernel/identity/secrets.ts';
import { DEFAULT_TENANT_ID } from '../../kernel/identity/tenants.ts';
import { toUserRecord } from '../../kernel/identity/users.ts';
import type { KernelEnv, PluginContext } from '../../kernel/plugin.ts';
import type { Store } from '../../kernel/storage/contract.ts';
import { joinLink, joinQuery, publicBaseUrl, type InvitesService } from '../invites/index.ts';
import { identityOf, userForSignIn } from './accounts.ts';
import { ssoAuditEvent } from './audit-events.ts';
import { isBlocked } from './blocks.ts';
import { allowed, groupsOf, NO_GROUPS_CLAIM, noGroupsWarning, usesGroups } from './groups.ts';
import { providerName, tenantRules, type SsoConfig } from './config.ts';
import { LINK_NOT_VALID, type LinkingService } from './linking.ts';
import { SignInRefused, type RelyingParty } from './oidc.ts';
import { signedInPage, type Page } from './pages.ts';
import { COOKIE, decode } from './pending.ts';
import { notAdmitted, Refusal } from './refusal.ts';
import { claimState, usedStateTenant } from './single-use.ts';
import { consoleAction } from './console.ts';

/** How many times the failed-authentication limit a callback with its own sign-in may fail. */
export const OWN_SIGN_IN_SCALE = 10;

export interface CallbackDeps {
  ctx: PluginContext<SsoConfig>;
  rp: RelyingParty;
  invites: InvitesService;
  keys: { key(): Promise<CryptoKey> };
  linking: LinkingService;
  /** The sign-in cookie's path and `Secure` flag, to delete it. */
  cookie: { path: string; secure: boolean };
  redirectUri: string;
  /** Told the sign-in's tenant once the cookie names it (for the "Try again" link). */
  onTenant(tenantId: string): void;
}

export async function finishSignIn(
  c: Context<KernelEnv>,
  config: NonNullable<SsoConfig>,
  deps: CallbackDeps,
): Promise<Page> {
  const { ctx } = deps;
  const now = ctx.clock.now();
  const { pending, state, failed } = await openSignIn(c, deps, now);

  // The sign-in's tenant, named by its signed cookie: the store names this request too.
  const store = ctx.storage(pending.tenant, actingAs(c.get('auditScope')));
  /** `sso.refused` in the sign-in's tenant: whom the provider named, if it got that far. */
  const refusedEvent = (reason: string, claims?: Record<string, unknown>) =>
    ctx.audit.record(
      store,
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
  const rules = tenantRules(config, pending.tenant);
  const tenant = await ctx.identity.tenants.get(pending.tenant);
  if (!rules || !tenant) {
    if (tenant) await refusedEvent('single sign-on is not enabled for this tenant');
    throw notAdmitted(pending.tenant);
  }

  const idpError = c.req.query('error');
  if (idpError) {
    const detail = c.req.query('error_description');
    throw await failed(
      400,
      'Sign-in cancelled',
      `${providerName(config.oidc)} refused the sign-in (${idpError}${detail ? `: ${detail}` : ''}).`,
    );
  }
  const callbackUrl = new URL(deps.redirectUri);
  callbackUrl.search = new URL(c.req.url).search;
  let claims: Record<string, unknown>;
  try {
    claims = await deps.rp.finish(callbackUrl, { ...pending, state });
  } catch (error) {
    if (error instanceof SignInRefused) {
      await refusedEvent(error.message);
      throw await failed(400, 'Sign-in refused', `The sign-in failed a check: ${error.message}.`);
    }
    throw error;
  }
  const person = identityOf(claims, config.oidc);
  await assertAdmitted(
    ctx,
    config,
    rules,
    { store, tenantId: pending.tenant, claims, person },
    refusedEvent,
  );
  // A sign-in started from an administrator's one-time link links its user first.
  if (pending.link) {
    const linked = await deps.linking
      .redeemCode(store, sha256Hex(pending.link), person)
      .catch((error) => {
        if (error instanceof HttpError && error.status === 409)
          throw new Refusal(400, 'Account not linked', error.message, false);
        throw error;
      });
    if (!linked) throw new Refusal(400, 'Link not valid', LINK_NOT_VALID, false);
  }
  const issued = await store.transaction(async (tx) => {
    const { user } = await userForSignIn(
      ctx.identity,
      tx,
      config.oidc,
      rules,
      claims,
      now.toISOString(),
    );
    await ctx.audit.record(
      tx,
      // With the subject, so an admin can block or link this person by it.
      ssoAuditEvent(
        'sso.signed_in',
        { id: user.id, name: user.name, provider: config.oidc.issuer },
        { subject: person.subject },
      ),
    );
    return deps.invites.issue(tx, user, 1, {
      lifetimeMs: config.codeMinutes * 60_000,
      tokenTtlDays: config.tokenTtlDays,
    });
  });
  return resultPage(ctx, config, tenant, issued);
}

/**
 * The browser's own sign-in: its signed cookie (deleted now), which must match the `state` and is
 * recorded as used on every instance. Refuses, counting a failure, otherwise; `failed` counts one
 * for the steps after it.
 */
async function openSignIn(c: Context<KernelEnv>, deps: CallbackDeps, now: Date) {
  const { ctx } = deps;
  const pending = await decode(getCookie(c, COOKIE), await deps.keys.key(), now.getTime());
  deleteCookie(c, COOKIE, deps.cookie);
  const state = c.req.query('state') ?? '';
  const own = pending !== null && state !== '' && timingSafeEqual(state, pending.state);
  const throttleKey = `${ctx.clientIp(c)}:${own ? 'sso-own' : 'sso'}`;
  await ctx.throttle.assertNotBlocked(throttleKey);
  const failed = async (status: 400 | 403, title: string, reason: string) => {
    await ctx.throttle.recordFailure(throttleKey, own ? OWN_SIGN_IN_SCALE : 1);
    return new Refusal(status, title, reason);
  };
  if (!pending) {
    // The result page reloaded (or opened again): its sign-in finished, and the code it showed is
    // not shown twice. Said as it is, and not counted as a failure.
    const finished = state
      ? await usedStateTenant(ctx.storage(DEFAULT_TENANT_ID), state, now.toISOString())
      : null;
    if (finished !== null) {
      deps.onTenant(finished);
      throw new Refusal(
        400,
        'Sign-in already finished',
        'This page belongs to a sign-in that has finished: its one-time button is shown only once. If HarborClient did not connect, sign in again for a new one.',
        true,
        'Sign in again',
      );
    }
    throw await failed(
      400,
      'Sign-in expired',
      'This browser has no sign-in in progress (it expired, or cookies are blocked). Start again.',
    );
  }
  deps.onTenant(pending.tenant);
  const used = own
    ? await claimState(
        ctx.storage(DEFAULT_TENANT_ID),
        { state, tenant: pending.tenant, expiresAt: new Date(pending.expiresAt).toISOString() },
        now.toISOString(),
      )
    : false;
  if (!used)
    throw await failed(
      400,
      'Sign-in refused',
      'The sign-in response does not belong to a sign-in started in this browser, or was used already. Start again.',
    );
  return { pending, state, failed };
}

/** Refuses, with its audit event, a person an administrator blocked or the tenant's groups do not admit. */
async function assertAdmitted(
  ctx: PluginContext<SsoConfig>,
  config: NonNullable<SsoConfig>,
  rules: NonNullable<ReturnType<typeof tenantRules>>,
  signIn: {
    store: Store;
    tenantId: string;
    claims: Record<string, unknown>;
    person: ReturnType<typeof identityOf>;
  },
  refusedEvent: (reason: string, claims?: Record<string, unknown>) => Promise<unknown>,
): Promise<void> {
  const { claims, person } = signIn;
  if (await isBlocked(signIn.store, person.issuer, person.subject)) {
    await refusedEvent('blocked by an administrator', claims);
    throw new Refusal(
      403,
      'Not allowed on this hub',
      'An administrator of this hub has blocked your account from signing in. Ask the hub administrator.',
      false,
    );
  }
  const groups = groupsOf(claims, config.oidc.groupsClaim);
  // No claim at all is the configuration's fault, not the person's: the operator must hear of it.
  if (groups === null && usesGroups(rules))
    ctx.log.warn(noGroupsWarning(config.oidc), { tenant: signIn.tenantId });
  if (!allowed(rules, groups ?? [])) {
    await refusedEvent(groups === null ? NO_GROUPS_CLAIM : 'not in an allowed group', claims);
    throw new Refusal(
      403,
      'Not allowed on this hub',
      groups === null
        ? "The identity provider did not say which groups your account is in, so this hub cannot tell whether you may sign in. Ask the hub administrator: the hub's log says what to change."
        : `Your account is not in a group allowed on this hub (${rules.allowedGroups.join(', ')}). Ask the hub administrator.`,
      false,
    );
  }
}

/** The page with the one-time code: the desktop's deep link, the join link and the console's offer. */
function resultPage(
  ctx: PluginContext<SsoConfig>,
  config: NonNullable<SsoConfig>,
  tenant: { id: string; name: string },
  issued: Awaited<ReturnType<InvitesService['issue']>>,
): Page {
  const baseUrl = publicBaseUrl(ctx.hubConfig().server);
  const record = toUserRecord(issued.user);
  const link = {
    baseUrl,
    user: record,
    expiresAt: issued.invitation.expiresAt,
    hubName: tenant.name,
    tenantId: tenant.id,
  };
  // The desktop app redeems the code in the tenant it is set to: the link names it (`tenant=`).
  const query = joinQuery(link);
  return signedInPage({
    hubName: tenant.name,
    tenantId: tenant.id === DEFAULT_TENANT_ID ? null : tenant.id,
    userName: record.name,
    role: record.role,
    access: query.get('access') ?? '',
    hubAddress: baseUrl,
    deepLink: `harborclient://team-hub/join?${query.toString()}&code=${encodeURIComponent(issued.secret)}`,
    joinLink: joinLink({ ...link, secret: issued.secret }),
    expiresAt: issued.invitation.expiresAt,
    tokenTtlDays: config.tokenTtlDays,
    console: consoleOffer(ctx.identity, issued.secret, tenant.id),
  });
}

/** The web console's form for the code, when the console offers one (console.ts). */
function consoleOffer(
  identity: PluginContext<SsoConfig>['identity'],
  code: string,
  tenantId: string,
) {
  const action = consoleAction(identity);
  return action ? { action, code, tenantId } : null;
}
