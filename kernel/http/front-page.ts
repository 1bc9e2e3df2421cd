/**
 * `GET /` (public): a small HTML page for whoever opens the hub's address in a browser — what this
 * is, its version, where the API reference is, and the address to paste into the HarborClient
 * desktop app. Self-contained like the other pages (`html.ts`): inline style under a nonce, no
 * script, nothing from other origins. The address is `server.publicUrl`, else the configured host
 * and port (a wildcard bind shown as 127.0.0.1), never the request's Host header.
 */
import { Hono, type Context } from 'hono';
import type { HubConfig } from '../config/load.ts';
import type { KernelEnv } from '../plugin.ts';
import type { RouteDocs } from './openapi.ts';
import { HUB_VERSION } from '../version.ts';
import { DESKTOP_APP_URL, escapeHtml, htmlPageHeaders, newNonce } from './html.ts';
import { publicBaseUrl } from './hub-address.ts';

const STYLE = `
:root { color-scheme: light dark; --fg: #1f2933; --muted: #52606d; --bg: #f5f7fa; --card: #fff; --accent: #0369a1; }
@media (prefers-color-scheme: dark) { :root { --fg: #e4e7eb; --muted: #9aa5b1; --bg: #111827; --card: #1f2937; --accent: #38bdf8; } }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
main { max-width: 34rem; margin: 0 auto; padding: 2rem 1rem; }
.card { background: var(--card); border-radius: 12px; padding: 1.5rem; box-shadow: 0 1px 3px rgba(0,0,0,.15); }
h1 { font-size: 1.4rem; margin: 0 0 .25rem; }
h2 { font-size: 1.05rem; margin: 1.25rem 0 .5rem; }
p { margin: .5rem 0; }
.muted { color: var(--muted); }
code { font: .95rem ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; overflow-wrap: anywhere; }
.address { display: block; padding: .6rem .8rem; border-radius: 8px; background: var(--bg); user-select: all; }
a { color: var(--accent); }
`;

/** The page; every value shown is escaped. */
export function frontPageHtml(view: { address: string; login?: string }, nonce: string) {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>workspace-hub</title>
<style nonce="${nonce}">${STYLE}</style>
</head>
<body>
<main><div class="card">
<h1>workspace-hub</h1>
<p class="muted">Version ${escapeHtml(HUB_VERSION)} · a self-hosted team hub for the HarborClient desktop app</p>
<h2>Connect the desktop app</h2>
<p>In HarborClient, add a Team Hub and paste this address:</p>
<code class="address" id="address">${escapeHtml(view.address)}</code>
<p>Then sign in with the token your administrator gave you, or open the invitation link you were sent.</p>${
    view.login
      ? `\n<p>Or <a id="login" href="${escapeHtml(view.login)}">sign in with your company account</a> to get a link that connects the app.</p>`
      : ''
  }
<p class="muted">No desktop app yet? <a href="${DESKTOP_APP_URL}">Get HarborClient</a>.</p>
<h2>For developers</h2>
<p><a href="/docs">API reference</a> (<a href="/openapi.json">OpenAPI document</a>)</p>
</div></main>
</body>
</html>
`;
}

/** The page's headers: its own nonce'd style, nothing else. */
function frontPageHeaders(nonce: string): Record<string, string> {
  return htmlPageHeaders([`style-src 'nonce-${nonce}'`, 'img-src data:']);
}

export function frontPageRoutes(config: () => HubConfig): Hono<KernelEnv> {
  return new Hono<KernelEnv>().get('/', (c: Context<KernelEnv>) => {
    const nonce = newNonce();
    // Single sign-on is a plugin's; its section's presence is all the front page needs to know.
    const login = config().sso
      ? `${new URL(publicBaseUrl(config().server)).pathname.replace(/\/+$/, '')}/login`
      : undefined;
    const html = frontPageHtml(
      { address: publicBaseUrl(config().server), ...(login ? { login } : {}) },
      nonce,
    );
    return c.body(html, 200, frontPageHeaders(nonce));
  });
}

/** Docs of `GET /`. */
export const frontPageDocs: RouteDocs = {
  'GET /': {
    summary:
      "The hub's front page (HTML): version, the API reference, how to connect the desktop app",
    responses: {
      200: {
        contentType: 'text/html',
        description: 'The front page',
        schema: { type: 'string' },
      },
    },
  },
};
