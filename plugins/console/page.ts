/**
 * What a console page is: a path under `/console`, whether only administrators may open it, its
 * link in the navigation, and how it answers a GET (and, with forms, a POST). The frame
 * (`frame.tsx`) does the rest for every page: the session, the signed-in user, the 403 page for a
 * member on an admin page, the form token of every POST, the layout and the headers. A page reads
 * and writes only through `page.api`, the hub's own API acting as the signed-in user. Adding a
 * page is one file in `pages/` and one line in `pages/index.ts` (docs/console.md).
 */
import type { Context } from 'hono';
import type { Child } from 'hono/jsx';
import type { HubConfig } from '../../kernel/config/load.ts';
import type { KernelEnv } from '../../kernel/plugin.ts';
import type { ConsoleApi } from './api-client.ts';

/** The signed-in user as `GET /auth/session` answers. */
export interface Me {
  user: {
    id: string;
    name: string;
    role: 'user' | 'admin';
    avatarInitials: string;
    avatarColor: string;
    avatarImageUrl?: string;
  };
  token: { id: string; prefix: string };
  tenantId: string;
  hub: { name: string; initials: string; color: string; imageUrl?: string };
}

/** What a page's handlers get. */
export interface PageContext {
  /** The request (for headers and anything the fields below do not cover). */
  c: Context<KernelEnv>;
  /** The hub's API as the signed-in user: same rules, same answers as over HTTP. */
  api: ConsoleApi;
  me: Me;
  /** The session's form token: every form carries it (`<Form>` in forms.tsx adds it). */
  csrf: string;
  /** A console path as a link: `href('/users')` is `/console/users` under the hub's base path. */
  href(path: string): string;
  /** A path parameter of the page's path (`:id`), as given. */
  param(name: string): string;
  /** A query parameter, or undefined. */
  query(name: string): string | undefined;
}

/** A page's answer: its title (the `<title>` and `<h1>`), its content and status. */
export interface PageView {
  title: string;
  body: Child;
  /** @default 200 */
  status?: 200 | 400 | 403 | 404 | 409;
}

/** After a form was handled: go to this console path (`303 See Other`, so a reload never posts). */
export interface Redirect {
  redirect: string;
}

/** A form post's fields, as sent (the form token already checked and removed). */
export type FormFields = Readonly<Record<string, string>>;

export interface ConsolePage {
  /** The path under `/console`: `''` is `/console` itself, `'/users/:id'` takes a parameter. */
  path: string;
  /** One line for `/openapi.json`, which lists every console page. */
  summary: string;
  /** Only administrators may open it: members get the 403 page, and no link to it. */
  admin: boolean;
  /** Its link in the navigation (pages with parameters have none). */
  nav?: string;
  /**
   * Whether the page exists for this hub and user (say, only with multitenancy): when not, it has
   * no link and answers the 404 page. @default always
   */
  available?(hub: HubConfig, me: Me): boolean;
  /**
   * What a GET answers when it is no page but a file (a download): its type, for `/openapi.json`.
   * Such a page's `get` returns the `Response` itself.
   */
  file?: { contentType: string; description: string };
  get(page: PageContext): Promise<PageView | Response>;
  /** Handles the page's forms; a view answers with errors beside the fields, a redirect on success. */
  post?(page: PageContext, fields: FormFields): Promise<PageView | Redirect>;
}

/** Gives a page definition its type (one page per file in `pages/`). */
export function definePage(page: ConsolePage): ConsolePage {
  return page;
}
