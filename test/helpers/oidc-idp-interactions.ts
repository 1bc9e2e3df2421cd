/**
 * The test OpenID Provider's own login and consent pages, at the address oidc-provider sends a
 * browser to (`/interaction/<uid>`): a login form that takes any password for a known login, and
 * a consent form that grants what the client asked for. oidc-provider's development pages would
 * do, but it warns on every start that they are for development only; a provider of the suite
 * has no use for that warning, and these pages keep the same form fields (`login`, `password`,
 * a submit button) that the suites fill in.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

interface Grant {
  addOIDCScope(scope: string): void;
  addOIDCClaims(claims: string[]): void;
  save(): Promise<string>;
}

/** The part of oidc-provider these pages use (the package ships no type declarations). */
interface InteractionProvider {
  interactionDetails(
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<{
    prompt: { name: string; details: Record<string, unknown> };
    params: Record<string, unknown>;
    session?: { accountId: string };
    grantId?: string;
  }>;
  interactionFinished(
    req: IncomingMessage,
    res: ServerResponse,
    result: Record<string, unknown>,
    options: { mergeWithLastSubmission: boolean },
  ): Promise<void>;
  Grant: {
    new (init: { accountId: string; clientId: string }): Grant;
    find(id: string): Promise<Grant | undefined>;
  };
}

/** The provider as {@link InteractionProvider}, once it is seen to have those members. */
function interactionsOf(provider: object): InteractionProvider {
  for (const name of ['interactionDetails', 'interactionFinished', 'Grant'])
    if (typeof Reflect.get(provider, name) !== 'function')
      throw new Error(`oidc-provider has no ${name} (another major version?)`);
  return provider as InteractionProvider;
}

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const page = (title: string, form: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${escape(title)}</title></head>` +
  `<body><h1>${escape(title)}</h1>${form}</body></html>`;

async function formBody(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function html(res: ServerResponse, body: string): void {
  res.statusCode = 200;
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.end(body);
}

/**
 * Answers the interaction routes and returns true; false for any other request (the provider's).
 * Any non-empty login signs in (the provider's `findAccount` knows everyone).
 */
export function interactionPages(instance: object) {
  const provider = interactionsOf(instance);
  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    const route = /^\/interaction\/([\w-]+)(\/login|\/confirm)?$/.exec(
      req.url?.split('?')[0] ?? '',
    );
    if (!route) return false;
    const [, uid, action] = route;
    const details = await provider.interactionDetails(req, res);
    if (req.method === 'GET' && !action) {
      if (details.prompt.name === 'login')
        html(
          res,
          page(
            'Sign-in',
            `<form method="post" action="/interaction/${uid}/login" autocomplete="off">` +
              '<input name="login" placeholder="login" value="">' +
              '<input name="password" type="password" placeholder="password" value="">' +
              '<button type="submit">Sign in</button></form>',
          ),
        );
      else
        html(
          res,
          page(
            'Authorize',
            `<form method="post" action="/interaction/${uid}/confirm">` +
              '<button type="submit">Continue</button></form>',
          ),
        );
      return true;
    }
    if (req.method === 'POST' && action === '/login') {
      const login = (await formBody(req)).get('login') ?? '';
      if (login.trim() === '') {
        html(res, page('Sign-in failed', '<p>Give a login.</p>'));
        return true;
      }
      await provider.interactionFinished(
        req,
        res,
        { login: { accountId: login } },
        { mergeWithLastSubmission: false },
      );
      return true;
    }
    if (req.method === 'POST' && action === '/confirm') {
      await formBody(req);
      const { params, session, prompt } = details;
      const clientId = String(params.client_id);
      const grant = details.grantId
        ? (await provider.Grant.find(details.grantId))!
        : new provider.Grant({ accountId: session!.accountId, clientId });
      const missing = prompt.details as {
        missingOIDCScope?: string[];
        missingOIDCClaims?: string[];
      };
      if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
      if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
      const grantId = await grant.save();
      await provider.interactionFinished(
        req,
        res,
        { consent: { grantId } },
        { mergeWithLastSubmission: true },
      );
      return true;
    }
    res.statusCode = 405;
    res.end();
    return true;
  };
}
