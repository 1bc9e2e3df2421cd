/**
 * The console's entries in `/openapi.json`: HTML pages, redirects and the two asset files. Each
 * page of `pages/` documents itself from its definition, so a new page needs no docs of its own.
 */
import type { OperationDoc, RouteDocs } from '../../kernel/http/openapi.ts';
import type { ConsolePage } from './page.ts';

const html = (description: string) => ({
  contentType: 'text/html',
  description,
  schema: { type: 'string' },
});

/** What every signed-in page may answer instead of itself. */
const refusals = {
  401: html(
    'The session has ended (its token was revoked or expired, or the user deleted): the sign-in page',
  ),
  403: html(
    "A member on an administrator's page, a form without the session's form token, or another site's form",
  ),
  404: html(
    'What the page shows does not exist, or the page is not available on this hub (or the console is off: JSON)',
  ),
  409: html('The API refused the change as conflicting'),
  429: html('Too many failed attempts from this address'),
  503: html('The database or another dependency cannot answer'),
};

function pageDocs(page: ConsolePage): RouteDocs {
  const path = `/console${page.path}`;
  const who = page.admin ? 'Administrators only' : 'Any signed-in user';
  const docs: RouteDocs = {
    [`GET ${path}`]: {
      summary: `${page.summary} (HTML)`,
      description: `${who}; without a session it redirects to the sign-in page${page.path === '' ? ' (here: is the sign-in page)' : ''}. Never cached.`,
      responses: {
        200: page.file ? { ...page.file, schema: { type: 'string' } } : html('The page'),
        303: null,
        400: html('A query the API refused'),
        ...refusals,
      },
    },
  };
  if (page.post)
    docs[`POST ${path}`] = {
      summary: `A form of ${path} (HTML form post with the session's form token)`,
      responses: {
        200: html(
          'The outcome itself, where it shows what only this answer has (a new token or link, a reload report)',
        ),
        303: null,
        400: html("The page again, with the API's message beside the field and what was typed"),
        ...refusals,
      },
    };
  return docs;
}

const signInRefusals = {
  400: html(
    "The sign-in page with the API's message (a missing token, a malformed tenant or code)",
  ),
  404: html('The sign-in page: the tenant does not exist'),
  429: html('The sign-in page: too many failed sign-ins from this address'),
  503: html('The sign-in page: the database cannot answer'),
};

const fixed: Record<string, OperationDoc> = {
  'GET /console/assets/:file': {
    summary:
      "The console's style sheet or script (the name carries the content's hash; kept a year)",
    errors: [404],
    responses: {
      200: {
        contentType: 'text/*',
        description: 'The style sheet (text/css) or the script (text/javascript)',
        schema: { type: 'string' },
      },
    },
  },
  'POST /console/sign-in': {
    summary: 'Sign in to the console with an API token (form: `token`, optional `tenant`)',
    description:
      'The token is asked about as a bearer token, so wrong tokens count against the address like any failed authentication. On success a session cookie (HttpOnly, SameSite=Strict; Secure and `__Host-` behind https) and a redirect to `/console`. Refused without a same-origin `Origin` (or `Sec-Fetch-Site`).',
    responses: {
      303: null,
      401: html('The sign-in page: the token does not work here'),
      403: html('Another site posted the form'),
      ...signInRefusals,
    },
  },
  'POST /console/sso': {
    summary: "Open the console from single sign-on's result page (form: `code`, `tenant`)",
    description:
      "Redeems the one-time code (as `POST /auth/invitations/redeem`) for a token of the session's own, revoked when it signs out; the desktop app's button for the same code then no longer works.",
    responses: {
      303: null,
      401: html('The sign-in page: the new token stopped working at once (revoked meanwhile)'),
      403: html('Another site posted the form'),
      410: html('The sign-in page: the code was used or has expired'),
      ...signInRefusals,
    },
  },
  'POST /console/sign-out': {
    summary: 'End the console session (form with its form token); audited',
    responses: {
      303: null,
      401: refusals[401],
      403: html("The form did not carry the session's form token"),
    },
  },
};

/** Docs of every console route. */
export function consoleDocs(pages: readonly ConsolePage[]): RouteDocs {
  return Object.assign({}, fixed, ...pages.map(pageDocs));
}
