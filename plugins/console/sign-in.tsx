/**
 * Into and out of a session. `GET /console` without one shows the sign-in page; `POST
 * /console/sign-in` proves the token by asking the API who it is (`GET /auth/session` with the
 * token as a bearer header, so the failed-authentication throttle counts wrong tokens from the
 * client's address); `POST /console/sso` takes the one-time code of a single sign-on's result
 * page and redeems it (`POST /auth/invitations/redeem`) for a token of the session's own, which
 * nobody sees; `POST /console/sign-out` ends the session. Neither sign-in has a session yet, so
 * their only guard against other sites is the `Origin` check every console POST passes.
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { sha256Hex, timingSafeEqual } from '../../kernel/identity/secrets.ts';
import { DEFAULT_TENANT_ID, validateTenantId } from '../../kernel/identity/tenants.ts';
import type { KernelEnv } from '../../kernel/plugin.ts';
import { ApiError, callApi, type ApiCaller } from './api-client.ts';
import { consolePaths, formFields, type ConsoleDeps } from './context.ts';
import { clearSessionCookie, readSessionCookie, writeSessionCookie } from './cookie.ts';
import type { Frame } from './frame.tsx';
import { failedForm, type FormState } from './forms.tsx';
import type { Me } from './page.ts';
import { renderDocument } from './render.tsx';
import type { SignInMethod } from './sessions.ts';
import { SignInView } from './sign-in-view.tsx';

/** The name of the token a single sign-on into the console gets (shown in token lists). */
export const SSO_TOKEN_NAME = 'Web console (single sign-on)';

const SIGNED_OUT = 'You have signed out.';
/** The API's refusals a sign-in shows on its page (anything else is a fault of the hub). */
const REFUSALS = new Set([400, 401, 404, 410, 429, 503]);
const UNAUTHORIZED =
  'Unauthorized: this token does not work here (unknown, revoked or expired, or of another tenant).';

/** The tenant a form or query names (the default tenant when blank); an error for a bad id. */
function tenantOf(raw: string | undefined): string {
  return raw === undefined || raw.trim() === '' ? DEFAULT_TENANT_ID : validateTenantId(raw);
}

export function signInRoutes(deps: ConsoleDeps, frame: () => Frame) {
  const paths = () => consolePaths(deps.hubConfig().server);
  /** One API request for the sign-in being served: a GET, or a POST of `body`. */
  const ask = <T,>(c: Context<KernelEnv>, caller: ApiCaller, path: string, body?: unknown) =>
    callApi<T>(c, deps.api, deps.clientIp, caller, body === undefined ? 'GET' : 'POST', path, body);

  /** The sign-in page for `tenantId`, with a notice or the state of a refused form. */
  async function page(
    c: Context<KernelEnv>,
    options: {
      tenantId: string;
      notice?: string;
      state?: FormState;
      status?: ContentfulStatusCode;
    },
  ): Promise<Response> {
    const { base, apiDocs } = paths();
    const tenant = options.tenantId === DEFAULT_TENANT_ID ? null : options.tenantId;
    return renderDocument(
      c,
      { title: 'Sign in', base, apiDocs, narrow: true },
      <SignInView
        base={base}
        tenantId={tenant}
        sso={deps.ssoLink(options.tenantId)}
        state={options.state}
        notice={options.notice}
      />,
      options.status ?? 200,
    );
  }

  /** `GET /console` signed out (and the page the frame shows when a session ends). */
  async function signInPage(c: Context<KernelEnv>, notice?: string, status?: ContentfulStatusCode) {
    const tenantId = await formTenant(c, c.req.query('tenant'));
    if (tenantId instanceof Response) return tenantId;
    const shown = notice ?? (c.req.query('signed-out') !== undefined ? SIGNED_OUT : undefined);
    return page(c, {
      tenantId,
      ...(shown ? { notice: shown } : {}),
      ...(status ? { status } : {}),
    });
  }

  /**
   * Opens the session for the token the API just took (`me`), sets the cookie, goes home. A
   * session the browser had (signing in to another tenant from the tenants page) is signed out
   * once the new one is open, so a failed sign-in leaves it as it was.
   */
  async function open(
    c: Context<KernelEnv>,
    tenantId: string,
    secret: string,
    me: Me,
    method: SignInMethod,
  ): Promise<Response> {
    const before = readSessionCookie(c, deps.hubConfig().server) ? await frame().signedIn(c) : null;
    const value = await deps.sessions.open(deps.auditedStore(c, tenantId), {
      tenantId,
      user: { id: me.user.id, name: me.user.name },
      token: { id: me.token.id, hash: sha256Hex(secret) },
      ownsToken: method === 'sso',
      method,
    });
    if (before && !(before instanceof Response))
      await deps.sessions.signOut(deps.auditedStore(c, before.session.tenantId), before.session, {
        id: before.me.user.id,
        name: before.me.user.name,
      });
    writeSessionCookie(c, deps.hubConfig().server, value, deps.sessions.cookieSeconds());
    return c.redirect(paths().base, 303);
  }

  /** The sign-in page again after the API refused: its message, with the status it gave. */
  async function again(c: Context<KernelEnv>, tenantId: string, error: unknown, field?: string) {
    if (!(error instanceof ApiError) || !REFUSALS.has(error.status)) throw error;
    const message = error.status === 401 ? UNAUTHORIZED : error.message;
    // A token the API refused is the token field's fault; other messages name their own field.
    const state: FormState =
      field && error.status === 401
        ? { values: {}, errors: { [field]: message } }
        : failedForm({}, error, field ? [field] : []);
    const answer = await page(c, { tenantId, state, status: error.status as ContentfulStatusCode });
    if (error.retryAfter !== null) answer.headers.set('Retry-After', String(error.retryAfter));
    return answer;
  }

  /** The form's tenant, or the page saying what is wrong with it. */
  async function formTenant(c: Context<KernelEnv>, raw: string | undefined) {
    try {
      return tenantOf(raw);
    } catch (error) {
      const message = `tenant: ${(error as Error).message}`;
      const state = { values: {}, errors: {}, message };
      return page(c, { tenantId: DEFAULT_TENANT_ID, state, status: 400 });
    }
  }

  return {
    signInPage,
    async signIn(c: Context<KernelEnv>) {
      const fields = await formFields(c);
      const tenantId = await formTenant(c, fields.tenant);
      if (tenantId instanceof Response) return tenantId;
      const token = (fields.token ?? '').trim();
      if (!token) {
        const state = { values: {}, errors: { token: 'token: must not be empty' } };
        return page(c, { tenantId, state, status: 400 });
      }
      try {
        // Asked with the token as a bearer header: a wrong token counts against this address.
        const headers = { authorization: `Bearer ${token}` };
        const me = await ask<Me>(c, { tenantId, tokenHash: null, headers }, '/auth/session');
        return await open(c, tenantId, token, me, 'token');
      } catch (error) {
        return again(c, tenantId, error, 'token');
      }
    },

    async singleSignOn(c: Context<KernelEnv>) {
      const fields = await formFields(c);
      const tenantId = await formTenant(c, fields.tenant);
      if (tenantId instanceof Response) return tenantId;
      try {
        const body = { secret: fields.code ?? '', tokenName: SSO_TOKEN_NAME };
        const { secret } = await ask<{ secret: string }>(
          c,
          { tenantId, tokenHash: null },
          '/auth/invitations/redeem',
          body,
        );
        const me = await ask<Me>(c, { tenantId, tokenHash: sha256Hex(secret) }, '/auth/session');
        return await open(c, tenantId, secret, me, 'sso');
      } catch (error) {
        return again(c, tenantId, error);
      }
    },

    async signOut(c: Context<KernelEnv>) {
      const who = await frame().signedIn(c);
      if (who instanceof Response) return who;
      if (!who) return c.redirect(paths().base, 303);
      const { csrf } = await formFields(c);
      if (!csrf || !timingSafeEqual(csrf, who.session.csrf))
        return frame().forbiddenForm(c, who, null);
      await deps.sessions.signOut(deps.auditedStore(c, who.session.tenantId), who.session, {
        id: who.me.user.id,
        name: who.me.user.name,
      });
      clearSessionCookie(c, deps.hubConfig().server);
      return c.redirect(`${paths().base}?signed-out`, 303);
    },
  };
}
