/**
 * A sign-in walked over plain HTTP with a cookie jar per origin, as a browser without script
 * would: the hub's `/login` and `/auth/sso/start`, the provider's login and consent forms, and
 * the hub's callback. `hub` sends a request to the hub (in process or over a socket).
 */
import type { TestHub } from '../helpers/hub.ts';

export type HubFetch = (
  pathAndQuery: string,
  init: { headers: Record<string, string> },
) => Promise<Response>;

/**
 * A test hub in process as a {@link HubFetch} (every answer checked against /openapi.json), each
 * request with `headers` added (say, the `X-Forwarded-For` a proxy appends).
 */
export function inProcess(t: TestHub, headers: Record<string, string> = {}): HubFetch {
  return async (path, init) => {
    const answer = await t.request('GET', path, {
      token: null,
      headers: { ...headers, ...init.headers },
    });
    return new Response(answer.status === 302 ? null : answer.text, {
      status: answer.status,
      headers: answer.headers,
    });
  };
}

class Jar {
  private cookies = new Map<string, string>();
  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at).trim();
      const value = pair!.slice(at + 1).trim();
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === '';
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
  get(name: string): string | undefined {
    return this.cookies.get(name);
  }
  set(name: string, value: string): void {
    this.cookies.set(name, value);
  }
}

export interface Walk {
  hubJar: Jar;
  /** The callback URL the provider sent the browser to (path and query). */
  callback: string;
}

const decodeEntities = (text: string) =>
  text
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');

/** The first form of a page: its action and its inputs' names and values. */
function form(html: string): { action: string; fields: Record<string, string> } {
  const found = /<form[^>]*action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/i.exec(html);
  if (!found) throw new Error(`no form on the provider's page: ${html.slice(0, 300)}`);
  const fields: Record<string, string> = {};
  for (const input of found[2]!.matchAll(/<input[^>]*>/gi)) {
    const name = /name="([^"]*)"/.exec(input[0])?.[1];
    const value = /value="([^"]*)"/.exec(input[0])?.[1] ?? '';
    if (name) fields[name] = decodeEntities(value);
  }
  return { action: decodeEntities(found[1]!), fields };
}

/** Starts at the hub and walks the provider's pages until it redirects back to the hub. */
export async function walkToCallback(options: {
  hub: HubFetch;
  hubBase: string;
  login: string;
  tenant?: string;
  /** An administrator's one-time link code (`/login?link=`). */
  link?: string;
}): Promise<Walk> {
  const hubJar = new Jar();
  const params = new URLSearchParams();
  if (options.tenant) params.set('tenant', options.tenant);
  if (options.link) params.set('link', options.link);
  const query = params.size > 0 ? `?${params.toString()}` : '';
  const loginPage = await options.hub(`/login${query}`, { headers: {} });
  if (loginPage.status !== 200) throw new Error(`/login answered ${loginPage.status}`);
  const start = /id="start"[^>]*href="([^"]+)"/.exec(await loginPage.text())?.[1];
  if (!start) throw new Error('the login page has no start link');
  const started = await options.hub(decodeEntities(start), { headers: {} });
  if (started.status !== 302)
    throw new Error(`start answered ${started.status}: ${await started.text()}`);
  hubJar.take(started);
  const idpJar = new Jar();
  let url = started.headers.get('location')!;
  let method = 'GET';
  let body: string | undefined;
  for (let step = 0; step < 20; step += 1) {
    if (url.startsWith(options.hubBase))
      return { hubJar, callback: url.slice(options.hubBase.length) };
    const response = await fetch(url, {
      method,
      redirect: 'manual',
      headers: {
        cookie: idpJar.header(),
        ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(body ? { body } : {}),
    });
    idpJar.take(response);
    const location = response.headers.get('location');
    if (location) {
      await response.body?.cancel();
      url = new URL(location, url).href;
      method = 'GET';
      body = undefined;
      continue;
    }
    const html = await response.text();
    if (response.status !== 200)
      throw new Error(`the provider answered ${response.status}: ${html.slice(0, 300)}`);
    const { action, fields } = form(html);
    if ('login' in fields || /name="login"/.test(html)) {
      fields.login = options.login;
      fields.password = 'any';
    }
    url = new URL(action, url).href;
    method = 'POST';
    body = new URLSearchParams(fields).toString();
  }
  throw new Error('the provider never redirected back to the hub');
}

/** Finishes a walk: the hub's callback with the browser's cookie. */
export function callback(options: { hub: HubFetch }, walk: Walk, path = walk.callback) {
  return options.hub(path, { headers: { cookie: walk.hubJar.header() } });
}

/** The `hbi_` code of a result page's deep link, if any. */
export function codeOf(html: string): string | null {
  const link = /id="open"[^>]*href="([^"]+)"/.exec(html)?.[1];
  if (!link) return null;
  return new URL(decodeEntities(link)).searchParams.get('code');
}
