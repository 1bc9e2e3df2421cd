/**
 * Small pieces several console pages show: a time (in UTC, put in the reader's zone by the
 * script), who made a change, a link to a record's history named for screen readers, and the
 * links between pages of a paged list.
 */
import type { FC } from 'hono/jsx';
import { historyPath } from './history-kinds.ts';
import type { PageContext } from './page.ts';

/** A time as the API gives it (ISO 8601, UTC), shown to the minute. */
export const When: FC<{ at: string }> = ({ at }) => (
  <time datetime={at}>{at.replace('T', ' ').slice(0, 16)} UTC</time>
);

/** Who a change names: a user (null name once deleted), or nobody for the command line. */
export const actorName = (actor: { name: string | null } | null): string =>
  actor === null ? 'command line' : (actor.name ?? 'a deleted account');

/** Text only screen readers read (a link's object, a marker's meaning). */
export const Hidden: FC<{ children?: string }> = ({ children }) => (
  <span class="sr">{children}</span>
);

/** "History" of a record, with what it is the history of for screen readers. */
export const HistoryLink: FC<{ page: PageContext; prefix: string; id: string; name: string }> = (
  props,
) => (
  <a href={props.page.href(historyPath(props.prefix, props.id))}>
    History<Hidden>{` of ${props.name}`}</Hidden>
  </a>
);

/**
 * The links of a paged list: its first page (when on a later one) and the next (`cursor` of the
 * API's `nextCursor`). `path` is the page's console path; `extra` other query parameters to keep.
 */
export const Pager: FC<{
  page: PageContext;
  path: string;
  next: string | undefined;
  what: string;
  extra?: Record<string, string | undefined>;
}> = ({ page, path, next, what, extra = {} }) => {
  const link = (cursor?: string) => {
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(extra)) if (value) query.set(key, value);
    if (cursor) query.set('cursor', cursor);
    const text = query.toString();
    return page.href(text ? `${path}?${text}` : path);
  };
  const later = page.query('cursor') !== undefined;
  if (!later && !next) return null;
  return (
    <p class="pager">
      {later ? <a href={link()}>{`Newest ${what}`}</a> : null}
      {next ? <a href={link(next)}>{`Older ${what}`}</a> : null}
    </p>
  );
};
