/**
 * The frame every console page stands in. For each request: find the session by its cookie, ask
 * the API who it acts as (`GET /auth/session`, which checks the token like any bearer request: a
 * revoked or expired token or a deleted user ends the session here, on the next page), refuse a
 * member an administrator's page (403), check a POST's form token (403), run the page, and render
 * it with the navigation the user may use. Refusals of the API become pages with their status.
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { timingSafeEqual } from '../../kernel/identity/secrets.ts';
import type { KernelEnv } from '../../kernel/plugin.ts';
import { ApiError, consoleApi, type ConsoleApi } from './api-client.ts';
import { consolePaths, formFields, type ConsoleDeps } from './context.ts';
import { clearSessionCookie, readSessionCookie } from './cookie.ts';
import type { NavLink } from './layout.tsx';
import type { ConsolePage, FormFields, Me, PageContext, PageView } from './page.ts';
import { renderDocument, STATUS_TITLES, StatusView } from './render.tsx';
import type { ConsoleSession } from './sessions.ts';

/** A signed-in request: its session, who it acts as, and the API as that user. */
export interface SignedIn {
  session: ConsoleSession;
  me: Me;
  api: ConsoleApi;
}

/** Shown on the sign-in page when the API no longer takes the session's token. */
export const SESSION_ENDED =
  'Your console session has ended: its token was revoked or has expired, or the account was deleted. Sign in again.';

export function createFrame(
  deps: ConsoleDeps,
  pages: readonly ConsolePage[],
  signInPage: (
    c: Context<KernelEnv>,
    notice?: string,
    status?: ContentfulStatusCode,
  ) => Promise<Response>,
) {
  const paths = () => consolePaths(deps.hubConfig().server);

  /** The session of the request and who it acts as; a response when there is none (any more). */
  async function signedIn(c: Context<KernelEnv>): Promise<SignedIn | Response | null> {
    const session = await deps.sessions.find(readSessionCookie(c, deps.hubConfig().server));
    if (!session) return null;
    const api = consoleApi(c, deps.api, deps.clientIp, {
      tenantId: session.tenantId,
      tokenHash: session.row.tokenHash,
    });
    try {
      return { session, me: await api.get<Me>('/auth/session'), api };
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 401) throw error;
      return ended(c, session);
    }
  }

  /** The session's token no longer works: the session goes, and the sign-in page says why. */
  async function ended(c: Context<KernelEnv>, session: ConsoleSession): Promise<Response> {
    await deps.sessions.drop(session);
    clearSessionCookie(c, deps.hubConfig().server);
    return signInPage(c, SESSION_ENDED, 401);
  }

  /** Whether a page exists for this hub and user (most always do). */
  const available = (page: ConsolePage, me: Me) => page.available?.(deps.hubConfig(), me) ?? true;
  /** The navigation: every page with a link that this user may open, in registration order. */
  const navFor = (me: Me, current: ConsolePage | null): NavLink[] =>
    pages
      .filter(
        (page) => page.nav && (!page.admin || me.user.role === 'admin') && available(page, me),
      )
      .map((page) => ({
        href: `${paths().base}${page.path}`,
        label: page.nav!,
        current: page === current,
      }));

  /** A page (or a status page) in the frame of the signed-in user. */
  function show(
    c: Context<KernelEnv>,
    who: SignedIn,
    page: ConsolePage | null,
    view: PageView | { title: string; message: string; status: ContentfulStatusCode },
    headers: Record<string, string> = {},
  ): Promise<Response> {
    const { base, apiDocs } = paths();
    const body = 'message' in view ? <StatusView message={view.message} base={base} /> : view.body;
    return renderDocument(
      c,
      {
        title: view.title,
        base,
        apiDocs,
        signedIn: { me: who.me, csrf: who.session.csrf, nav: navFor(who.me, page) },
      },
      body,
      view.status ?? 200,
      headers,
    );
  }

  /** The page an API refusal leaves: the sign-in page for a token gone, else a status page. */
  async function refused(c: Context<KernelEnv>, who: SignedIn, page: ConsolePage, error: unknown) {
    if (error instanceof ApiError && error.status === 401) return ended(c, who.session);
    // Anything else is a bug: the kernel logs it and answers 500.
    if (!(error instanceof ApiError) || !(error.status in STATUS_TITLES)) throw error;
    const status = error.status as ContentfulStatusCode;
    const headers: Record<string, string> =
      error.retryAfter === null ? {} : { 'Retry-After': String(error.retryAfter) };
    const title = STATUS_TITLES[status]!;
    return show(c, who, page, { title, message: error.message, status }, headers);
  }

  function context(c: Context<KernelEnv>, who: SignedIn): PageContext {
    return {
      c,
      api: who.api,
      me: who.me,
      csrf: who.session.csrf,
      href: (path) => `${paths().base}${path}`,
      param: (name) => c.req.param(name) ?? '',
      query: (name) => c.req.query(name),
    };
  }

  /** Runs `work` for a signed-in user allowed on `page`; the sign-in page or a refusal otherwise. */
  async function guarded(
    c: Context<KernelEnv>,
    page: ConsolePage,
    work: (who: SignedIn) => Promise<Response>,
  ): Promise<Response> {
    const who = await signedIn(c);
    if (who instanceof Response) return who;
    if (!who) {
      if (page.path === '') return signInPage(c);
      return c.redirect(paths().base, 303);
    }
    if (page.admin && who.me.user.role !== 'admin') {
      return show(c, who, page, {
        title: STATUS_TITLES[403]!,
        message: 'This page is for administrators of the hub.',
        status: 403,
      });
    }
    if (!available(page, who.me))
      return show(c, who, page, {
        title: STATUS_TITLES[404]!,
        message: 'This page is not available on this hub.',
        status: 404,
      });
    try {
      return await work(who);
    } catch (error) {
      return refused(c, who, page, error);
    }
  }

  return {
    signedIn,
    /** `GET` of a page. */
    get: (page: ConsolePage) => (c: Context<KernelEnv>) =>
      guarded(c, page, async (who) => {
        const view = await page.get(context(c, who));
        return view instanceof Response ? view : show(c, who, page, view);
      }),

    /** `POST` of a page (its Origin is checked before): the form token first, then the page. */
    post: (page: ConsolePage) => (c: Context<KernelEnv>) =>
      guarded(c, page, async (who) => {
        const { csrf, ...fields } = await formFields(c);
        if (!csrf || !timingSafeEqual(csrf, who.session.csrf)) return forbiddenForm(c, who, page);
        const result = await page.post!(context(c, who), fields as FormFields);
        if ('redirect' in result) return c.redirect(`${paths().base}${result.redirect}`, 303);
        return show(c, who, page, { ...result, status: result.status ?? 400 });
      }),

    /** The 403 page of a form without the session's token. */
    forbiddenForm,
  };

  function forbiddenForm(c: Context<KernelEnv>, who: SignedIn, page: ConsolePage | null) {
    return show(c, who, page, {
      title: STATUS_TITLES[403]!,
      message:
        "This form was refused: it did not carry this session's form token (it may come from another site, or from a page opened before you signed in again). Open the page again and send it from there.",
      status: 403,
    });
  }
}

export type Frame = ReturnType<typeof createFrame>;
