/**
 * The single sign-on pages, in the `/join` page's style: the login page, the result page with the
 * desktop deep link, and the refusal page, each with a way back to the hub's front page. Inline
 * style (and, on the result page, one small script) under the response's nonce; every value shown
 * is escaped; never cached, framed or sent a referrer.
 */
import { escapeHtml, htmlPageHeaders, newNonce } from '../../kernel/http/html.ts';
import { JOIN_STYLE } from '../invites/index.ts';

const EXTRA_STYLE = `
.note a { color: var(--accent); }
#console { margin: .75rem 0 0; }
.button.secondary { width: 100%; font: inherit; font-weight: 600; border: 2px solid var(--accent); background: transparent; color: var(--accent); cursor: pointer; }
.address { display: block; padding: .6rem .8rem; border-radius: 8px; background: var(--bg); user-select: all; overflow-wrap: anywhere; font: .9rem ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
`;

export interface Page {
  html: string;
  headers: Record<string, string>;
}

// Shows a `<time>` in the reader's own time zone and format, exactly as the `/join` page does; the
// text it replaces is the same format in UTC, for a browser without script.
const LOCAL_TIME = `
for (const time of document.querySelectorAll('time[datetime]')) {
  const when = new Date(time.getAttribute('datetime'));
  if (!isNaN(when.getTime())) time.textContent = when.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'long' });
}
`;

const UTC_TIME = new Intl.DateTimeFormat('en-US', {
  dateStyle: 'medium',
  timeStyle: 'long',
  timeZone: 'UTC',
});

/** A time as the sign-in and `/join` pages show it (`Jun 1, 2026, 10:10:00 AM UTC` without script). */
const timeHtml = (iso: string, id: string) =>
  `<time id="${id}" datetime="${escapeHtml(iso)}">${escapeHtml(UTC_TIME.format(new Date(iso)))}</time>`;

/** The way back to the hub's front page (`home`: its path under `server.publicUrl`). */
const homeLink = (home: string) =>
  `<p class="note"><a id="home" href="${escapeHtml(home)}">Back to the hub's front page</a></p>`;

function page(title: string, body: string, withScript = false, postsForm = false): Page {
  const nonce = newNonce();
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>${escapeHtml(title)}</title>
<style nonce="${nonce}">${JOIN_STYLE}${EXTRA_STYLE}</style>
</head>
<body>
<main><div class="card">${body}</div></main>
${withScript ? `<script nonce="${nonce}">${LOCAL_TIME}</script>\n` : ''}</body>
</html>
`;
  const sources = [`style-src 'nonce-${nonce}'`, 'img-src data:'];
  if (withScript) sources.push(`script-src 'nonce-${nonce}'`);
  return { html, headers: htmlPageHeaders(sources, postsForm ? "'self'" : "'none'") };
}

/**
 * `GET /login`: one link to start the sign-in. It names the tenant by the id the person came with
 * (null: the default tenant), never by its display name, which only a signed-in person sees. With
 * a one-time link code, it names the hub user the sign-in will be linked to.
 */
export function loginPage(view: {
  tenantId: string | null;
  provider: string;
  startHref: string;
  /** The front page's path. */
  home: string;
  /** The hub user a one-time link code links the sign-in to. */
  linkTo?: string | null;
}): Page {
  const { tenantId, provider, startHref, linkTo } = view;
  const tenant = tenantId
    ? `<p id="tenant">Tenant <b>${escapeHtml(tenantId)}</b> of this hub.</p>\n`
    : '';
  const note = linkTo
    ? `<p class="note" id="link">Sign in with your company account to link it to the hub user <b>${escapeHtml(linkTo)}</b>: from then on your company sign-in opens that account. The link works once.</p>`
    : '<p class="note">Sign in with your company account. You then get a one-time link that connects the HarborClient desktop app to this hub.</p>';
  return page(
    linkTo ? 'Link your account' : 'Sign in',
    `<h1>${linkTo ? 'Link your account' : 'Sign in'}</h1>
${tenant}${note}
<a id="start" class="button" href="${escapeHtml(startHref)}">Sign in with ${escapeHtml(provider)}</a>
${homeLink(view.home)}`,
  );
}

export interface SignedInView {
  hubName: string;
  /** The tenant when it is not the default one: the desktop app must be set to it. */
  tenantId: string | null;
  userName: string;
  role: string;
  access: string;
  hubAddress: string;
  /** `harborclient://team-hub/join?…&code=…` */
  deepLink: string;
  /** The `/join` link with the code, for File → Accept Team Hub Invite. */
  joinLink: string;
  expiresAt: string;
  tokenTtlDays: number;
  /** The web console's form for the same code (`console.ts`), when the console is on. */
  console?: { action: string; code: string; tenantId: string } | null;
}

/** "Open the console": posts the one-time code to the console, which redeems it for a session. */
const consoleForm = (form: { action: string; code: string; tenantId: string }) =>
  `<form id="console" method="post" action="${escapeHtml(form.action)}">
<input type="hidden" name="code" value="${escapeHtml(form.code)}">
<input type="hidden" name="tenant" value="${escapeHtml(form.tenantId)}">
<button type="submit" class="button secondary">Open the console</button>
</form>
<p class="note">The code works once: the console or the desktop app, whichever is opened first. Opening the console uses it, and the desktop button then no longer works (sign in here again for the app).</p>
`;

/** The callback's answer: the desktop deep link with the one-time code. */
export function signedInPage(view: SignedInView): Page {
  const facts = [
    ['User', 'f-name', view.userName],
    ['Role', 'f-role', view.role],
    ['Access', 'f-access', view.access],
    ['Hub address', 'f-hub', view.hubAddress],
  ]
    .map(([label, id, value]) => `<dt>${label}</dt><dd id="${id}">${escapeHtml(value ?? '')}</dd>`)
    .join('');
  const until = `<dt>Link valid until</dt><dd>${timeHtml(view.expiresAt, 'f-exp')}</dd>`;
  return page(
    `Signed in to ${view.hubName}`,
    `<h1 id="title">You're signed in to ${escapeHtml(view.hubName)}</h1>
<dl>${facts}${until}</dl>
<a id="open" class="button" href="${escapeHtml(view.deepLink)}">Open in HarborClient</a>
${view.console ? consoleForm(view.console) : ''}${
      view.tenantId
        ? `<p class="note" id="tenant">This sign-in is for the tenant <b>${escapeHtml(view.tenantId)}</b> of this hub: set HarborClient's tenant for this hub to it before you open the link (the app redeems the code in the tenant it is set to).</p>\n`
        : ''
    }<p class="note">The button works once and only for a few minutes. The desktop app then stays signed in for ${view.tokenTtlDays} days; sign in here again to renew it.</p>
<p class="note">Nothing happens? In HarborClient use File → Accept Team Hub Invite and paste this link:</p>
<code class="address" id="join-link">${escapeHtml(view.joinLink)}</code>
<p class="note">Or add a Team Hub with this address: <code id="hub-address">${escapeHtml(view.hubAddress)}</code></p>`,
    true,
    Boolean(view.console),
  );
}

/** Why a sign-in did not work, and what to do; never a code. */
export function refusalPage(view: {
  title: string;
  reason: string;
  /** The login page to start again from, or null where starting again cannot help. */
  retry: string | null;
  /** Names the button when retrying is the expected next step (a sign-in that finished). */
  retryLabel?: string;
  home: string;
}): Page {
  return page(
    view.title,
    `<h1 id="title">${escapeHtml(view.title)}</h1>
<p id="reason">${escapeHtml(view.reason)}</p>
${view.retry ? `<a id="retry" class="button" href="${escapeHtml(view.retry)}">${escapeHtml(view.retryLabel ?? 'Try again')}</a>` : ''}
<p class="note">If this keeps happening, ask the hub administrator.</p>
${homeLink(view.home)}`,
  );
}
