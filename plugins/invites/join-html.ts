/**
 * The HTML of the `/join` page: one self-contained document (inline style and script, both under
 * the response's CSP nonce; no external assets). Every value shown is escaped.
 */

/** What the page shows; built from a checked query by join-page.ts. */
export interface JoinView {
  url: string;
  name: string;
  role: string;
  expiresAt: string;
  expired: boolean;
  hub?: string;
  access?: string;
  /** `harborclient://team-hub/join?<query>`; the script appends `&code=<secret>`. */
  deepLinkBase: string;
}

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Escapes text for HTML element content and double- or single-quoted attributes. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (ch) => ENTITIES[ch]!);
}

const STYLE = `
:root { color-scheme: light dark; --fg: #1f2933; --muted: #52606d; --bg: #f5f7fa; --card: #fff; --accent: #0369a1; }
@media (prefers-color-scheme: dark) { :root { --fg: #e4e7eb; --muted: #9aa5b1; --bg: #111827; --card: #1f2937; --accent: #38bdf8; } }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
main { max-width: 30rem; margin: 0 auto; padding: 2rem 1rem; }
.card { background: var(--card); border-radius: 12px; padding: 1.5rem; box-shadow: 0 1px 3px rgba(0,0,0,.15); }
h1 { font-size: 1.4rem; margin: 0 0 1rem; overflow-wrap: anywhere; }
dl { margin: 0 0 1.25rem; display: grid; grid-template-columns: max-content 1fr; gap: .4rem 1rem; }
dt { color: var(--muted); }
dd { margin: 0; overflow-wrap: anywhere; }
.button { display: block; text-align: center; padding: .85rem 1rem; border-radius: 8px; background: var(--accent); color: #fff; font-weight: 600; text-decoration: none; }
.button.disabled { opacity: .45; pointer-events: none; }
.note { color: var(--muted); font-size: .9rem; margin: 1rem 0 0; }
.warn { font-weight: 600; }
`;

// Runs in the browser. Reads the code from the fragment (never sent to the server) and builds
// the deep link; without a well-formed code, or on an expired invite, the button stays disabled.
const SCRIPT = `
(function () {
  var root = document.getElementById('invite');
  if (!root) return;
  var time = document.getElementById('exp');
  var when = new Date(time.getAttribute('datetime'));
  // In the reader's own time zone, named ("GMT+9", "EST"), so nobody misreads the expiry; the
  // server-rendered text (UTC) stays for browsers without JavaScript.
  if (!isNaN(when.getTime())) time.textContent = when.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'long' });
  if (root.getAttribute('data-expired') === 'true') return;
  var code = new URLSearchParams(location.hash.slice(1)).get('code') || '';
  var status = document.getElementById('code-status');
  if (!/^hbi_[A-Za-z0-9_-]{8,200}$/.test(code)) {
    status.textContent = 'This link is missing its invitation code. Ask the hub administrator to send the whole link again.';
    status.className = 'note warn';
    return;
  }
  var open = document.getElementById('open');
  open.setAttribute('href', root.getAttribute('data-deep-link') + '&code=' + encodeURIComponent(code));
  open.removeAttribute('aria-disabled');
  open.className = 'button';
  status.textContent = 'The button opens HarborClient with this invitation. The code works once.';
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
<style nonce="${nonce}">${STYLE}</style>
</head>
<body>
<main>${body}</main>
<script nonce="${nonce}">${SCRIPT}</script>
</body>
</html>
`;
}

const formatUtc = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

/** The page for a checked invite, or the "Invalid invite link" page for `null`. */
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
  const hubName = view.hub ?? new URL(view.url).host;
  const rows: [string, string][] = [
    ['User', view.name],
    ['Role', view.role],
    ['Hub address', view.url],
  ];
  if (view.access) rows.push(['Access', view.access]);
  const details = rows
    .map(([label, value]) => `<dt>${escapeHtml(label)}</dt><dd>${escapeHtml(value)}</dd>`)
    .join('');
  const expires = `<time id="exp" datetime="${escapeHtml(view.expiresAt)}">${escapeHtml(formatUtc(view.expiresAt))}</time>`;
  const action = view.expired
    ? `<p class="warn">This invitation expired. Ask the hub administrator for a new invite link.</p>`
    : `<a id="open" class="button disabled" aria-disabled="true" role="button">Open in HarborClient</a>
<p id="code-status" class="note">Looking for the invitation code in this link…</p>
<p class="note">Nothing happens? Install HarborClient, then use File → Accept Team Hub Invite and paste this page's full address.</p>`;
  return page(
    `Join ${hubName}`,
    `<div class="card" id="invite" data-expired="${view.expired}" data-deep-link="${escapeHtml(view.deepLinkBase)}">
<h1>You're invited to ${escapeHtml(hubName)}</h1>
<dl>${details}<dt>${view.expired ? 'Expired' : 'Valid until'}</dt><dd>${expires}</dd></dl>
${action}
</div>`,
    nonce,
  );
}
