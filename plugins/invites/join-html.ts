/**
 * The HTML of the `/join` page: one self-contained document (inline style and script, both under
 * the response's CSP nonce; no external assets; its one request goes to the hub's own origin).
 * Every value shown is escaped.
 */
import { DESKTOP_APP_URL, escapeHtml } from '../../kernel/http/html.ts';
import { ENTITY_ACCESS_LISTS } from '../../kernel/identity/access.ts';

/**
 * What the page takes from a checked query: only where the link points and the deep link to
 * repeat. Who is invited, as what and until when comes from the hub's preview answer.
 */
export interface JoinView {
  /** The link's `url` (the hub the desktop app would connect to); checked against this origin. */
  url: string;
  /** `harborclient://team-hub/join?<query>`; the script appends `&code=<secret>`. */
  deepLinkBase: string;
  /** The invitation's tenant when it is not the default one (sent as `X-Hub-Tenant`). */
  tenant?: string;
}

/** The look of the hub's card pages (also single sign-on's). */
export const JOIN_STYLE = `
:root { color-scheme: light dark; --fg: #1f2933; --muted: #52606d; --bg: #f5f7fa; --card: #fff; --accent: #0369a1; }
@media (prefers-color-scheme: dark) { :root { --fg: #e4e7eb; --muted: #9aa5b1; --bg: #111827; --card: #1f2937; --accent: #38bdf8; } }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
main { max-width: 30rem; margin: 0 auto; padding: 2rem 1rem; }
.card { background: var(--card); border-radius: 12px; padding: 1.5rem; box-shadow: 0 1px 3px rgba(0,0,0,.15); }
h1 { font-size: 1.4rem; margin: 0 0 1rem; overflow-wrap: anywhere; }
a { color: var(--accent); font-weight: 600; text-underline-offset: .15em; }
a:hover { text-decoration-thickness: 2px; }
dl { margin: 0 0 1.25rem; display: grid; grid-template-columns: max-content 1fr; gap: .4rem 1rem; }
dt { color: var(--muted); }
dd { margin: 0; overflow-wrap: anywhere; }
.button { display: block; text-align: center; padding: .85rem 1rem; border-radius: 8px; background: var(--accent); color: #fff; font-weight: 600; text-decoration: none; }
.button.disabled { opacity: .45; pointer-events: none; }
.note { color: var(--muted); font-size: .9rem; margin: 1rem 0; }
.warn { font-weight: 600; }
[hidden] { display: none !important; }
`;

// Runs in the browser. Reads the code from the fragment (never put in a URL or header), asks the
// hub that served this page what the code is for (`POST auth/invitations/preview`, same origin),
// and shows only that answer: the query's own claims (name, role, access, expiry) are never shown.
// The deep link is offered only when the hub confirms a usable invitation and the link's `url`
// is this hub.
const SCRIPT = `
(function () {
  // [heading, field] of each entity access list (kernel/identity/access-lists.ts).
  var LISTS = ${JSON.stringify(ENTITY_ACCESS_LISTS.map((list) => [list.heading, list.field]))};
  var root = document.getElementById('invite');
  if (!root) return;
  var state = document.getElementById('state');
  var open = document.getElementById('open');
  function say(text, warn) {
    state.textContent = text;
    state.className = warn ? 'note warn' : 'note';
  }
  // A link that cannot be used any more: the heading says so, and the advice to paste the link
  // into HarborClient (which would fail the same way) goes.
  function dead(title, text) {
    document.getElementById('title').textContent = title;
    document.title = title;
    document.getElementById('help').hidden = true;
    say(text, true);
  }
  var NEW_LINK = 'Ask the hub administrator for a new invite link.';
  function list(name, values) {
    var text = values.indexOf('*') >= 0 ? 'all' : values.length === 0 ? 'none' : values.length + ' selected';
    return name + ': ' + text;
  }
  function access(user) {
    var llm = 'LLM: ' + (user.llmAccess ? 'enabled' : 'disabled');
    if (user.role === 'admin') return 'Full access (admin) · ' + llm;
    return LISTS.map(function (entry) { return list(entry[0], user[entry[1]] || []); })
      .concat([llm]).join(' · ');
  }
  var linkUrl = root.getAttribute('data-url');
  var linkOrigin = '';
  try { linkOrigin = new URL(linkUrl).origin; } catch (e) { linkOrigin = ''; }
  var sameHub = linkOrigin === location.origin;
  if (!sameHub) {
    var warning = document.getElementById('origin-warning');
    warning.textContent = 'Warning: this link says the hub is at ' + linkUrl + ', but this page comes from ' +
      location.origin + '. HarborClient would connect to ' + linkUrl + ', not to this hub. Ask the hub administrator for a new link.';
    warning.hidden = false;
  }
  var code = new URLSearchParams(location.hash.slice(1)).get('code') || '';
  if (!/^hbi_[A-Za-z0-9_-]{8,200}$/.test(code)) {
    dead('This invite link is incomplete', 'The link is missing its invitation code (the part after #code=). Open the whole link from the message you received, or ask the hub administrator to send it again.');
    return;
  }
  var headers = { 'Content-Type': 'application/json' };
  var tenant = root.getAttribute('data-tenant');
  if (tenant) headers['X-Hub-Tenant'] = tenant;
  fetch(new URL('auth/invitations/preview', location.href).href, {
    method: 'POST',
    headers: headers,
    body: JSON.stringify({ secret: code }),
    credentials: 'omit',
    cache: 'no-store',
    referrerPolicy: 'no-referrer'
  }).then(function (res) {
    return res.json().then(function (body) { return { status: res.status, body: body }; }, function () { return { status: res.status, body: null }; });
  }).then(function (answer) {
    var reason = answer.body && answer.body.reason;
    if (answer.status === 410 && reason === 'redeemed') return dead('This invitation was already used', 'Each invitation works once, and this one has been accepted in HarborClient. If that was not you, or you need it on another device, ask the hub administrator for a new invite link.');
    if (answer.status === 410 && reason === 'expired') return dead('This invitation has expired', 'It was not accepted in time. ' + NEW_LINK);
    if (answer.status === 410 && reason === 'revoked') return dead('This invitation was withdrawn', 'The hub administrator revoked it. If you still need access, ask them for a new invite link.');
    if (answer.status === 410) return dead('This invitation can no longer be used', 'It was used, withdrawn or has expired. ' + NEW_LINK);
    if (answer.status === 404) return dead('This invitation code is unknown', 'This hub does not know the code in this link. Check that you opened the whole link (with everything after #code=), or ask the hub administrator for a new one.');
    if (answer.status === 429) return say('Too many attempts from this address. Wait a while, then reload this page.', true);
    if (answer.status !== 200 || !answer.body || !answer.body.user) return say('The hub could not check this invitation right now (status ' + answer.status + '). Reload this page to try again.', true);
    var user = answer.body.user;
    var title = "You're invited to " + answer.body.hubName;
    document.getElementById('title').textContent = title;
    document.title = title;
    document.getElementById('f-name').textContent = user.name;
    document.getElementById('f-role').textContent = user.role;
    document.getElementById('f-access').textContent = access(user);
    document.getElementById('f-hub').textContent = location.origin;
    var time = document.getElementById('exp');
    var when = new Date(answer.body.expiresAt);
    time.setAttribute('datetime', answer.body.expiresAt);
    // In the reader's own time zone, named ("GMT+9", "EST"), so nobody misreads the expiry.
    time.textContent = isNaN(when.getTime()) ? answer.body.expiresAt : when.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'long' });
    document.getElementById('facts').hidden = false;
    if (!sameHub) return say('The hub confirmed this invitation, but the link points HarborClient elsewhere, so this page offers no button.', true);
    open.setAttribute('href', root.getAttribute('data-deep-link') + '&code=' + encodeURIComponent(code));
    open.removeAttribute('aria-disabled');
    open.className = 'button';
    open.hidden = false;
    say('The hub confirmed this invitation. The button opens HarborClient with it; the code works once.', false);
  }, function () {
    say('The hub could not be reached to check this invitation. Reload this page to try again.', true);
  });
})();
`;

function page(title: string, body: string, nonce: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style nonce="${nonce}">${JOIN_STYLE}</style>
</head>
<body>
<main>${body}</main>
<script nonce="${nonce}">${SCRIPT}</script>
</body>
</html>
`;
}

/**
 * The page for a checked invite, or the "Invalid invite link" page for `null`. It names no hub:
 * the script puts the name from the hub's preview in the title once the code checks out.
 */
export function joinPageHtml(view: JoinView | null, nonce: string): string {
  if (!view) {
    return page(
      'Invalid invite link',
      `<div class="card">
<h1>Invalid invite link</h1>
<p>This link is incomplete or damaged. An invite link names the hub's address, the invited user, their role and an expiry date.</p>
<p class="note">Ask the hub administrator to send the invite link again, and open or paste it whole.</p>
</div>`,
      nonce,
    );
  }
  const facts = [
    ['User', 'f-name'],
    ['Role', 'f-role'],
    ['Access', 'f-access'],
    ['Hub address', 'f-hub'],
  ]
    .map(([label, id]) => `<dt>${label}</dt><dd id="${id}"></dd>`)
    .join('');
  return page(
    "You're invited",
    `<div class="card" id="invite" data-url="${escapeHtml(view.url)}" data-deep-link="${escapeHtml(view.deepLinkBase)}"${view.tenant ? ` data-tenant="${escapeHtml(view.tenant)}"` : ''}>
<h1 id="title">You're invited</h1>
<p id="origin-warning" class="warn" hidden></p>
<dl id="facts" hidden>${facts}<dt>Valid until</dt><dd><time id="exp"></time></dd></dl>
<p id="state" class="note">Checking this invitation with the hub…</p>
<noscript><p class="warn">This page needs JavaScript to check the invitation with the hub.</p></noscript>
<a id="open" class="button disabled" aria-disabled="true" role="button" hidden>Open in HarborClient</a>
<div id="help">
${
  view.tenant
    ? `<p class="note">This invitation is for the tenant <b>${escapeHtml(view.tenant)}</b> of this hub: set HarborClient's tenant for this hub to it before you accept.</p>
`
    : ''
}<p class="note">Nothing happens? Install the <a href="${DESKTOP_APP_URL}">HarborClient desktop app</a>, then use File → Accept Team Hub Invite and paste this page's full address.</p>
</div>
</div>`,
    nonce,
  );
}
