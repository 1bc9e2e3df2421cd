/**
 * The console's routes under `/console`: its two asset files, signing in and out, and a GET (and a
 * POST where the page has forms) for every page of `pages/`. Every answer carries the console's
 * headers (`hono/secure-headers`: a CSP that allows only the hub's own files, no framing, no
 * referrer); every POST must come from a page of this hub (its `Origin`), else a 403 page.
 */
import type { Context, Next } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import { notFound } from '../../kernel/errors.ts';
import { describeMiddleware } from '../../kernel/http/openapi.ts';
import { createPluginApp, type KernelEnv } from '../../kernel/plugin.ts';
import { ASSETS } from './assets.ts';
import { consolePaths, sameOrigin, type ConsoleDeps } from './context.ts';
import { createFrame, type Frame } from './frame.tsx';
import type { ConsolePage } from './page.ts';
import { renderDocument, STATUS_TITLES, StatusView } from './render.tsx';
import { signInRoutes } from './sign-in.tsx';

const headers = secureHeaders({
  contentSecurityPolicy: {
    defaultSrc: ["'none'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'"],
    imgSrc: ["'self'", 'data:'],
    connectSrc: ["'self'"],
    formAction: ["'self'"],
    baseUri: ["'none'"],
    frameAncestors: ["'none'"],
  },
  referrerPolicy: 'no-referrer',
  xFrameOptions: 'DENY',
  // TLS is the reverse proxy's: whether a whole domain is https-only is the operator's call.
  strictTransportSecurity: false,
});

/** A year: the assets' names change with their content. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

export function consoleRoutes(deps: ConsoleDeps, pages: readonly ConsolePage[]) {
  const fromHere = sameOrigin(() => deps.hubConfig().server);
  const paths = () => consolePaths(deps.hubConfig().server);

  // Off: every console path is the hub's plain 404. A POST from another site: a 403 page.
  const guard = describeMiddleware(
    async (c: Context<KernelEnv>, next: Next) => {
      if (!deps.config().enabled) throw notFound('Not Found');
      if (c.req.method === 'POST' && !(await fromHere(c))) {
        const { base, apiDocs } = paths();
        const message =
          'This form was refused: it was not sent from a page of this hub. Open the console and send it from there.';
        return renderDocument(
          c,
          { title: STATUS_TITLES[403]!, base, apiDocs, narrow: true },
          <StatusView message={message} base={base} />,
          403,
        );
      }
      return next();
    },
    { errors: [404] },
  );

  let frame: Frame | undefined;
  const signIn = signInRoutes(deps, () => frame!);
  frame = createFrame(deps, pages, signIn.signInPage);

  const app = createPluginApp();
  app.use('/console/*', headers, guard);
  app.get('/console/assets/:file', (c) => {
    const asset = ASSETS.get(c.req.param('file'));
    if (!asset) throw notFound('Not Found');
    return c.body(asset.body, 200, { 'Content-Type': asset.type, 'Cache-Control': IMMUTABLE });
  });
  app.post('/console/sign-in', signIn.signIn);
  app.post('/console/sso', signIn.singleSignOn);
  app.post('/console/sign-out', signIn.signOut);
  for (const page of pages) {
    app.get(`/console${page.path}`, frame.get(page));
    if (page.post) app.post(`/console${page.path}`, frame.post(page));
  }
  return app;
}
