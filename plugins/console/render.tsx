/**
 * Turning a console view into a response: the document around it, and the pages every route may
 * answer instead of its own (a refusal, a missing record, an outage), each with its status.
 */
import type { Context } from 'hono';
import type { Child } from 'hono/jsx';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { Layout, type LayoutProps } from './layout.tsx';

/** The whole document, never cached: every console page shows someone's data or a form. */
export async function renderDocument(
  c: Context,
  props: Omit<LayoutProps, 'children'>,
  body: Child,
  status: ContentfulStatusCode = 200,
  headers: Record<string, string> = {},
): Promise<Response> {
  const html = await (<Layout {...props}>{body}</Layout>).toString();
  return c.html(`<!doctype html>\n${html}`, status, { 'Cache-Control': 'no-store', ...headers });
}

/** The content of a page that explains why the page asked for is not shown. */
export const StatusView = (props: { message: string; base: string }) => (
  <div class="card">
    <p id="reason">{props.message}</p>
    <p>
      <a href={props.base}>Back to the console</a>
    </p>
  </div>
);

/** The title of a status page. */
export const STATUS_TITLES: Readonly<Record<number, string>> = {
  400: 'Not understood',
  403: 'Not allowed',
  404: 'Not found',
  409: 'Conflict',
  410: 'Gone',
  429: 'Too many attempts',
  503: 'Unavailable',
};
