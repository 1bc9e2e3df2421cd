/**
 * The console as a browser without script uses it, over a test hub in process: a cookie jar for
 * the session cookie, form posts with the same-origin `Origin` a browser sends, and the page's
 * form token read from its HTML. Every answer is checked against /openapi.json by the test hub.
 * `ConsoleProbe` is an administrator's page the suites add, as phase-two pages will be added.
 */
import { createConsolePlugin, definePage } from '../../plugins/console/index.ts';
import { plugins } from '../../plugins/index.ts';
import type { TestHub, TestResponse } from '../helpers/hub.ts';

/** An administrator's page with a link in the navigation and a form (the frame's test subject). */
export const probePage = definePage({
  path: '/probe',
  summary: "A test's administrator page",
  admin: true,
  nav: 'Probe',
  get: async (page) => ({
    title: 'Probe',
    body: `${(await page.api.get<{ users: unknown[] }>('/admin/users')).users.length} users`,
  }),
  post: async () => ({ redirect: '/probe' }),
});

/** Every plugin of the hub, with the console serving its own pages and the probe. */
export async function pluginsWithProbe() {
  const { pages } = await import('../../plugins/console/pages/index.ts');
  return plugins.map((plugin) =>
    plugin.name === 'console' ? createConsolePlugin([...pages, probePage]) : plugin,
  );
}

export interface Page extends TestResponse {
  html: string;
  location: string | null;
}

/** The form token of a page, or null. */
export const csrfOf = (html: string) =>
  /name="csrf" value="([0-9a-f]{64})"/.exec(html)?.[1] ?? null;

export function consoleClient(
  t: Pick<TestHub, 'request'>,
  options: { origin?: string; cookieName?: string } = {},
) {
  const origin = options.origin ?? 'http://localhost';
  const name = options.cookieName ?? 'hub_console';
  let cookie: string | null = null;
  const jar = (answer: TestResponse) => {
    for (const line of answer.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [key, value] = [
        pair!.slice(0, pair!.indexOf('=')),
        pair!.slice(pair!.indexOf('=') + 1),
      ];
      if (key !== name) continue;
      cookie = value === '' || /max-age=0/i.test(line) ? null : value;
    }
  };
  const headers = (extra: Record<string, string> = {}) => ({
    ...(cookie ? { cookie: `${name}=${cookie}` } : {}),
    ...extra,
  });
  const done = (answer: TestResponse): Page => {
    jar(answer);
    return { ...answer, html: answer.text, location: answer.headers.get('location') };
  };
  return {
    get cookie() {
      return cookie;
    },
    set cookie(value: string | null) {
      cookie = value;
    },
    async get(path: string): Promise<Page> {
      return done(await t.request('GET', path, { token: null, headers: headers() }));
    },
    /** A form post from a page of the hub (`Origin` given unless `origin: null`). */
    async post(
      path: string,
      fields: Record<string, string>,
      extra: { origin?: string | null; headers?: Record<string, string> } = {},
    ): Promise<Page> {
      const from = extra.origin === undefined ? origin : extra.origin;
      return done(
        await t.request('POST', path, {
          token: null,
          rawBody: new URLSearchParams(fields).toString(),
          headers: headers({
            'content-type': 'application/x-www-form-urlencoded',
            ...(from ? { origin: from } : {}),
            ...extra.headers,
          }),
        }),
      );
    },
    /** Signs in with `token` (and `tenant`); the answer of the sign-in post. */
    async signIn(token: string, tenant?: string): Promise<Page> {
      return this.post('/console/sign-in', { token, ...(tenant ? { tenant } : {}) });
    },
  };
}
