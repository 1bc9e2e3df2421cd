/**
 * The console's style sheet and its one small script, served by the hub under names that carry
 * a hash of their content (`console.<hash>.css`), so browsers keep them for a year and a new
 * version is a new name. Both are part of the source (bundled into `dist/` by `npm install`
 * like every other module): no build step, no file to find at run time, the same bytes on Node
 * and Deno. The script only adds comfort to pages that work without it: copy buttons, confirm
 * dialogs, live filters on tables and times in the reader's zone.
 */
import { sha256Hex } from '../../kernel/identity/secrets.ts';

// The hub's look (the `/`, `/join` and `/login` pages), widened to a frame with a header, a
// navigation and tables. Avatar backgrounds use the 700 shade of each palette colour, dark
// enough for white initials.
const CSS = `
:root{color-scheme:light dark;--fg:#1f2933;--muted:#52606d;--bg:#f5f7fa;--card:#fff;--accent:#0369a1;--line:#d9e2ec;--bad:#b91c1c;--ok:#047857}
@media (prefers-color-scheme:dark){:root{--fg:#e4e7eb;--muted:#9aa5b1;--bg:#111827;--card:#1f2937;--accent:#38bdf8;--line:#374151;--bad:#fca5a5;--ok:#6ee7b7}}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--accent);font-weight:600;text-underline-offset:.15em}
a:hover{text-decoration-thickness:2px}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.skip{position:absolute;left:-999px;top:.5rem;background:var(--card);padding:.5rem 1rem;border-radius:8px;z-index:2}
.skip:focus{left:.5rem}
.top{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1rem;padding:.75rem 1rem;background:var(--card);border-bottom:1px solid var(--line)}
.brand{font-size:1.1rem;text-decoration:none;color:var(--fg);margin-right:auto}
.who{display:flex;align-items:center;gap:.5rem;flex-wrap:wrap}
.who form{margin:0}
nav{background:var(--card);border-bottom:1px solid var(--line)}
nav ul{display:flex;flex-wrap:wrap;gap:.25rem;list-style:none;margin:0 auto;padding:.25rem 1rem;max-width:72rem}
nav a{display:block;padding:.4rem .7rem;border-radius:8px;text-decoration:none}
nav a[aria-current=page]{background:var(--bg);color:var(--fg)}
main{max-width:72rem;margin:0 auto;padding:1.5rem 1rem 3rem}
main.narrow{max-width:30rem}
h1{font-size:1.4rem;margin:0 0 1rem;overflow-wrap:anywhere}
h2{font-size:1.1rem;margin:0 0 .75rem}
.card{background:var(--card);border-radius:12px;padding:1.25rem;box-shadow:0 1px 3px rgba(0,0,0,.15);margin-bottom:1.25rem;overflow-wrap:anywhere}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(16rem,1fr));gap:1.25rem}
.figures{display:grid;grid-template-columns:repeat(auto-fit,minmax(9rem,1fr));gap:.75rem;margin:0 0 1.25rem;padding:0;list-style:none}
.figures li{background:var(--card);border-radius:12px;padding:1rem;box-shadow:0 1px 3px rgba(0,0,0,.15)}
.figures b{display:block;font-size:1.6rem}
dl{margin:0;display:grid;grid-template-columns:max-content 1fr;gap:.4rem 1rem}
dt{color:var(--muted)}
dd{margin:0;overflow-wrap:anywhere}
.muted,.note{color:var(--muted)}
.note{font-size:.9rem}
.scroll{overflow-x:auto;position:relative}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:.45rem .6rem;border-bottom:1px solid var(--line);vertical-align:top;overflow-wrap:normal}
td code{white-space:nowrap}
th{color:var(--muted);font-weight:600}
code{font:.9rem ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;overflow-wrap:anywhere}
.good{color:var(--ok);font-weight:600}
.bad{color:var(--bad);font-weight:600}
form.stack{display:grid;gap:1rem}
form.stack>button{justify-self:start}
.field{display:grid;gap:.3rem}
label{font-weight:600}
input,select,textarea{font:inherit;color:inherit;background:var(--card);border:1px solid var(--muted);border-radius:8px;padding:.55rem .7rem;width:100%}
input[aria-invalid=true],select[aria-invalid=true]{border-color:var(--bad);border-width:2px}
.error{color:var(--bad);font-weight:600;margin:0}
button,.button{display:inline-block;font:inherit;font-weight:600;padding:.6rem 1rem;border-radius:8px;border:0;background:var(--accent);color:#fff;text-decoration:none;cursor:pointer;text-align:center}
@media (prefers-color-scheme:dark){button,.button{color:#0b1220}}
button.quiet{background:transparent;color:var(--accent);border:1px solid var(--accent)}
.notice{border-left:4px solid var(--accent);padding:.6rem .9rem;background:var(--card);border-radius:8px;margin-bottom:1rem}
.notice.bad{border-color:var(--bad)}
.avatar{display:inline-grid;place-items:center;width:2.5rem;height:2.5rem;border-radius:50%;color:#fff;font-weight:700;background:#0369a1}
.av-sky-600{background:#0369a1}.av-violet-600{background:#6d28d9}.av-emerald-600{background:#047857}.av-amber-600{background:#b45309}
.av-rose-600{background:#be123c}.av-cyan-600{background:#0e7490}.av-indigo-600{background:#4338ca}.av-teal-600{background:#0f766e}
.filter{margin-bottom:.75rem;max-width:20rem}
footer{max-width:72rem;margin:0 auto;padding:0 1rem 2rem}
[hidden]{display:none!important}
.sr{position:absolute;width:1px;height:1px;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.links,.pager,.actions{display:flex;flex-wrap:wrap;align-items:center;gap:.4rem 1rem}
.actions form{margin:0}
td.actions{white-space:nowrap}
.tree{list-style:none;margin:0;padding-left:1.1rem;border-left:2px solid var(--line)}
.card>.tree{padding-left:0;border:0}
.tree li{padding:.3rem 0;overflow-wrap:anywhere}
.kind,.method,.badge{display:inline-block;font-size:.75rem;font-weight:700;padding:.05rem .4rem;border-radius:6px;border:1px solid var(--muted);color:var(--muted)}
.method{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;color:var(--fg)}
.badge{color:var(--accent);border-color:var(--accent)}
pre{font:.85rem/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;white-space:pre-wrap;overflow-wrap:anywhere;background:var(--bg);padding:.75rem;border-radius:8px;max-height:24rem;overflow:auto}
summary{cursor:pointer;color:var(--accent);font-weight:600}
blockquote{margin:.25rem 0;padding-left:.75rem;border-left:3px solid var(--line);color:var(--muted)}
.notices{list-style:none;margin:1rem 0 0;padding:0}
.notice-entry{display:flex;gap:.75rem;align-items:flex-start;padding:.6rem 0;border-top:1px solid var(--line)}
.notice-entry p{margin:0}
.picture{border-radius:50%;object-fit:cover;vertical-align:middle}
.who-am-i{display:flex;align-items:center;gap:.6rem;flex-wrap:wrap}
.compare{display:grid;grid-template-columns:repeat(auto-fit,minmax(14rem,1fr));gap:1rem;align-items:end;margin-bottom:1rem}
.compare button{justify-self:start}
.card>form+form{margin-top:.75rem}
fieldset.choice{border:1px solid var(--line);border-radius:8px;margin:0;padding:.4rem .8rem;display:flex;flex-wrap:wrap;gap:.3rem 1rem}
fieldset.choice label{font-weight:400;display:flex;align-items:center;gap:.35rem}
fieldset.choice input{width:auto}
legend{font-weight:600;padding:0 .3rem}
h3{font-size:1rem;margin:1.25rem 0 .5rem}
table.diff{font:.85rem/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;min-width:36rem}
table.diff th{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
table.diff td{padding:.05rem .5rem;border:0}
table.diff td.text{white-space:pre-wrap;overflow-wrap:anywhere;width:50%}
table.diff.unified td.text{width:auto}
table.diff td.no{color:var(--muted);text-align:right;user-select:none;width:1%;white-space:nowrap}
td.del{background:#fde8e8}td.ins{background:#e3f6ec}td.none{background:var(--bg)}
td.del::before{content:"− " / "";font-weight:700}td.ins::before{content:"+ " / "";font-weight:700}
del{background:#f7c1c1;color:inherit;text-decoration:line-through}ins{background:#b7e6cc;color:inherit;text-decoration:none}
@media (prefers-color-scheme:dark){td.del{background:#3b1d1d}td.ins{background:#15332a}del{background:#6b2424}ins{background:#1f5a42}}
tr.fold td{color:var(--muted);text-align:center;background:var(--bg);font-style:italic}
.check{display:flex;align-items:baseline;gap:.5rem}
.check input{width:auto;flex:none}
.check label{font-weight:400}
fieldset.picker{border:1px solid var(--line);border-radius:8px;padding:.75rem 1rem;margin:0;min-width:0}
fieldset.invalid{border-color:var(--bad);border-width:2px}
.choices{max-height:14rem;overflow-y:auto;margin:.4rem 0 0 1.5rem}
form.filters{display:grid;grid-template-columns:repeat(auto-fit,minmax(12rem,1fr));gap:.75rem;align-items:end;margin-bottom:1rem}
.pager,.tabs ul{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;margin:0 0 1rem;padding:0;list-style:none}
.tabs a{display:block;padding:.35rem .7rem;border-radius:8px;text-decoration:none}
.tabs a[aria-current=page]{background:var(--card);color:var(--fg)}
td.actions form{display:inline-block;margin:0 .25rem .25rem 0}
button.danger{background:var(--bad)}
button.quiet.danger{background:transparent;color:var(--bad);border-color:var(--bad)}
.secret code{font-size:1rem;word-break:break-all}
ul.plain{list-style:none;margin:0;padding:0}
.warn{display:block}
@media (max-width:40rem){main{padding:1rem .75rem 2rem}.card{padding:1rem}dl{grid-template-columns:1fr}dd{margin-bottom:.4rem}}
`;

// Each part finds its markers and does nothing on a page without them.
const JS = `
(function () {
  'use strict';
  var zone = { dateStyle: 'medium', timeStyle: 'short' };
  document.querySelectorAll('time[datetime]').forEach(function (time) {
    var when = new Date(time.getAttribute('datetime'));
    if (!isNaN(when.getTime())) time.textContent = when.toLocaleString(undefined, zone);
  });
  document.querySelectorAll('[data-copy]').forEach(function (source) {
    if (!navigator.clipboard) return;
    var button = document.createElement('button');
    button.type = 'button';
    button.className = 'quiet';
    button.textContent = source.getAttribute('data-copy') || 'Copy';
    button.addEventListener('click', function () {
      navigator.clipboard.writeText(source.textContent.trim()).then(function () {
        button.textContent = 'Copied';
      });
    });
    source.insertAdjacentElement('afterend', button);
  });
  document.querySelectorAll('form[data-confirm]').forEach(function (form) {
    form.addEventListener('submit', function (event) {
      if (!window.confirm(form.getAttribute('data-confirm'))) event.preventDefault();
    });
  });
  document.querySelectorAll('table[data-filter]').forEach(function (table, index) {
    var id = 'filter-' + index;
    var wrap = document.createElement('div');
    wrap.className = 'field filter';
    var label = document.createElement('label');
    label.htmlFor = id;
    label.textContent = table.getAttribute('data-filter');
    var input = document.createElement('input');
    input.id = id;
    input.type = 'search';
    input.addEventListener('input', function () {
      var needle = input.value.trim().toLowerCase();
      table.querySelectorAll('tbody tr').forEach(function (row) {
        row.hidden = needle !== '' && row.textContent.toLowerCase().indexOf(needle) < 0;
      });
    });
    wrap.append(label, input);
    (table.closest('.scroll') || table).insertAdjacentElement('beforebegin', wrap);
  });
})();
`;

export interface Asset {
  /** The file name, with the content's hash: `console.<hash>.css`. */
  name: string;
  type: string;
  body: string;
}

const asset = (ext: 'css' | 'js', type: string, body: string): Asset => ({
  name: `console.${sha256Hex(body).slice(0, 12)}.${ext}`,
  type,
  body,
});

export const STYLE = asset('css', 'text/css; charset=utf-8', CSS.trim());
export const SCRIPT = asset('js', 'text/javascript; charset=utf-8', JS.trim());

/** The assets by file name. */
export const ASSETS: ReadonlyMap<string, Asset> = new Map([
  [STYLE.name, STYLE],
  [SCRIPT.name, SCRIPT],
]);
