/**
 * What the sign-in pages say when a person does the ordinary things: reloads the result page
 * (its sign-in has finished — said so, with a way to sign in again, and not counted as a failed
 * callback), opens /login on a hub without single sign-on (a way back to the front page), and
 * reads the expiry (a `<time>` in the format of /join, in UTC until the page's script shows the
 * reader's own zone).
 */
import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../kernel/clock.ts';
import { EMBEDDED_DRIVER } from '../helpers/drivers.ts';
import { useTestHub } from '../helpers/hub.ts';
import { useSsoHub } from '../helpers/sso-hub.ts';
import { callback, codeOf, inProcess, walkToCallback, type HubFetch } from './browserless.ts';

const HUB_BASE = 'http://hub.example.test/team';

describe('the sign-in pages', () => {
  const clock = createManualClock(new Date('2026-07-04T08:05:00.000Z'));
  const { t } = useSsoHub(EMBEDDED_DRIVER, {
    hubBase: HUB_BASE,
    people: [{ login: 'pia' }],
    clock,
    tenants: { acme: 'Acme Hub' },
  });
  // Requests reach the hub without the /team prefix, as behind a proxy that strips it.
  const hub: HubFetch = (path, init) => inProcess(t)(path.replace(/^\/team\//, '/'), init);
  const walk = (tenant?: string) =>
    walkToCallback({ hub, hubBase: HUB_BASE, login: 'pia', ...(tenant ? { tenant } : {}) });
  const titleOf = (html: string) => /<h1 id="title">([^<]*)<\/h1>/.exec(html)?.[1];

  it('shows the expiry as /join does, in UTC before its script shows local time', async () => {
    const page = await callback({ hub }, await walk());
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain(
      '<time id="f-exp" datetime="2026-07-04T08:15:00.000Z">Jul 4, 2026, 8:15:00 AM UTC</time>',
    );
    const nonce = /script-src 'nonce-([^']+)'/.exec(
      page.headers.get('content-security-policy')!,
    )![1];
    expect(html).toContain(`<script nonce="${nonce}">`);
    expect(html).toContain("dateStyle: 'medium', timeStyle: 'long'");
  });

  it('says a reloaded result page belongs to a finished sign-in, without counting it as a failure', async () => {
    for (const tenant of [undefined, 'acme']) {
      const w = await walk(tenant);
      const first = await callback({ hub }, w);
      expect(first.status).toBe(200);
      // The response deleted the cookie: a reload sends the same address without it.
      for (let i = 0; i < 12; i += 1) {
        const reload = await hub(w.callback, { headers: {} });
        const html = await reload.text();
        expect(reload.status).toBe(400);
        expect(titleOf(html)).toBe('Sign-in already finished');
        expect(html).not.toContain('cookies are blocked');
        expect(codeOf(html)).toBeNull();
        expect(html).toContain(
          `<a id="retry" class="button" href="/team/login${tenant ? `?tenant=${tenant}` : ''}">Sign in again</a>`,
        );
      }
    }
    // A callback that never had a sign-in still says so, and still counts.
    const stray = await hub('/auth/sso/callback?state=never-issued&code=x', { headers: {} });
    expect(titleOf(await stray.text())).toBe('Sign-in expired');
  });

  it('offers the way back to the front page on every page', async () => {
    const login = await (await hub('/login', { headers: {} })).text();
    expect(login).toContain('<a id="home" href="/team/">');
    const refused = await (await hub('/login?tenant=nope', { headers: {} })).text();
    expect(refused).toContain('<a id="home" href="/team/">');
  });
});

describe('/login on a hub without single sign-on', () => {
  const t = useTestHub(EMBEDDED_DRIVER, { config: {} });

  it('says single sign-on is off and links back to the front page', async () => {
    const page = await t.request('GET', '/login', { token: null });
    expect(page.status).toBe(404);
    expect(page.text).toContain('This hub has no single sign-on.');
    expect(page.text).toContain(`<a id="home" href="/">Back to the hub's front page</a>`);
  });
});
