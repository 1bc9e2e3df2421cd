/** API docs of the single sign-on routes: HTML pages and a redirect, never a JSON body. */
import { z } from 'zod';
import type { RouteDocs } from '../../kernel/http/openapi.ts';
import { linkCodeSchema, ssoLinkSchema } from './admin.ts';
import { ssoBlockSchema } from './blocks.ts';

const html = (description: string) => ({
  contentType: 'text/html',
  description,
  schema: { type: 'string' },
});

const tenantQuery = z.object({
  tenant: z
    .string()
    .optional()
    .describe(
      'With multitenancy: the tenant to sign in to (one the `sso` section admits); default tenant without it',
    ),
  link: z
    .string()
    .optional()
    .describe(
      "An administrator's one-time link code (`hbl_…`, `POST /admin/sso/link-codes`): the sign-in links the code's user",
    ),
});

export const ssoApi: RouteDocs = {
  'GET /login': {
    summary: 'Single sign-on login page (HTML): a link to sign in with the identity provider',
    responses: {
      200: html('The login page'),
      400: html(
        'A malformed `tenant`, another tenant while multitenancy is off, or a `link` that does not work',
      ),
      429: html('Too many failed sign-ins or link codes from this address'),
      404: html(
        'Single sign-on is off, or the tenant does not admit it (the same page whether or not it exists)',
      ),
      503: html('The database cannot answer'),
    },
    query: tenantQuery,
  },
  'GET /auth/sso/start': {
    summary: "Start a sign-in: redirect to the identity provider's authorization endpoint",
    description:
      'PKCE (S256), `state` and `nonce`, kept by this browser alone in a 10-minute HttpOnly, SameSite=Lax cookie on `/auth/sso`, signed by the hub (nothing is stored).',
    responses: {
      302: { description: 'To the identity provider', contentType: 'text/plain' },
      400: html(
        'A malformed `tenant`, another tenant while multitenancy is off, or a `link` that does not work',
      ),
      429: html('Too many failed sign-ins or link codes from this address'),
      404: html(
        'Single sign-on is off, or the tenant does not admit it (the same page whether or not it exists)',
      ),
      503: html(
        "The identity provider or the database cannot answer, or `sso.oidc.issuer` is not spelled as the provider's discovery document spells it",
      ),
    },
    query: tenantQuery,
  },
  'GET /auth/sso/callback': {
    summary:
      'Finish a sign-in (HTML): a page with a one-time `harborclient://team-hub/join` deep link',
    description:
      "Checks the state against this browser's signed sign-in (single use, on every instance), that the sign-in's tenant still admits single sign-on, exchanges the code, verifies the ID token (signature, issuer, audience, nonce, expiry), links or creates the hub user in that tenant, applies role and access from the tenant's groups rules and answers a page with an `hbi_` code that expires in `sso.codeMinutes`. Refusals are pages without a code. Failed checks are counted per client address with the bearer-auth policy; a blocked address gets 429, except for a callback that carries this browser's own sign-in, whose failures (a cancelled sign-in included) count apart under a limit ten times higher.",
    responses: {
      200: html('Signed in: the deep link, the join link and the hub address'),
      400: html(
        'No sign-in in progress, a forged or replayed state, a provider error, a failed check, or a link code that no longer works or would link a second account',
      ),
      403: html('Not in `sso.oidc.allowedGroups`'),
      404: html("Single sign-on is off, or the sign-in's tenant no longer admits it"),
      429: html('Too many failed sign-ins from this address'),
      503: html('The identity provider or the database cannot answer'),
    },
    query: z.object({
      code: z.string().optional(),
      state: z.string().optional(),
      iss: z.string().optional(),
      error: z.string().optional(),
      error_description: z.string().optional(),
    }),
  },
};

ssoApi['GET /admin/sso/links'] = {
  summary: 'Users linked to the identity provider (issuer and subject)',
  responses: { 200: z.object({ links: z.array(ssoLinkSchema) }) },
};
ssoApi['DELETE /admin/sso/links/:userId'] = {
  summary:
    'Unlink a user from the identity provider (the account stays; the next sign-in creates a new one)',
  description: 'Audited as `sso.unlinked`, with the issuer and subject the link had.',
  errors: [404],
  responses: { 204: null },
};
ssoApi['POST /admin/sso/links'] = {
  summary: 'Link an existing user to the person with this subject at the identity provider',
  description:
    "The subject is in `GET /admin/sso/links` (for an account a sign-in made), in the `sso.signed_in` and `sso.refused` audit events, or in the provider's own console. Never by name. 201 with the new link; 200 with the link as it was when the user is linked to this very subject already (nothing changes); 409 when the user is linked to another subject, or the subject to another user (unlink first).",
  errors: [404, 409],
  responses: { 200: ssoLinkSchema, 201: ssoLinkSchema },
};
ssoApi['POST /admin/sso/link-codes'] = {
  summary: "A one-time link whose next sign-in links the user to the signing person's identity",
  description:
    'Hand the `url` to the person: they open it, sign in with the identity provider, and from then on their sign-in opens this account. A newer code replaces an older one of the user. 409 when the user is linked already.',
  errors: [404, 409],
  responses: { 201: linkCodeSchema },
};
ssoApi['GET /admin/sso/blocks'] = {
  summary: 'People kept out of this tenant although the identity provider admits them',
  responses: { 200: z.object({ blocks: z.array(ssoBlockSchema) }) },
};
ssoApi['POST /admin/sso/blocks'] = {
  summary:
    "Block a person: their sign-ins are refused (and audited); a linked user's tokens are revoked",
  description:
    "By `userId` (a linked user) or by the provider's `subject` (see `GET /admin/sso/links` or the `sso.refused` and `sso.signed_in` audit events). The block outlives the user's deletion; the account itself stays.",
  errors: [404, 409],
  responses: { 201: ssoBlockSchema },
};
ssoApi['DELETE /admin/sso/blocks/:id'] = {
  summary: 'Lift a block: the person may sign in again',
  errors: [404],
  responses: { 204: null },
};
