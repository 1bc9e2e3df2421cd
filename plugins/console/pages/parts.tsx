/**
 * Pieces the administrator's pages share: a secret shown once with its copy button, a notice of
 * what just happened, a time in UTC (the script shows it in the reader's zone), a table that
 * scrolls sideways as a focusable region at 390 px, an action on one of its rows, and links
 * between pages of a long list.
 */
import type { Child, FC } from 'hono/jsx';
import { Form } from '../forms.tsx';
import type { PageContext } from '../page.ts';

/** How many rows a long list shows per page. */
export const PAGE_SIZE = 50;

/** A secret the API answers only now: shown once, with a copy button (the script adds it). */
export const SecretOnce: FC<{ id: string; label: string; value: string; children?: Child }> = (
  props,
) => (
  <section class="card secret" aria-labelledby={`${props.id}-title`}>
    <h2 id={`${props.id}-title`}>{props.label}</h2>
    <p>
      <code id={props.id} data-copy={`Copy ${props.label.toLowerCase()}`}>
        {props.value}
      </code>
    </p>
    {props.children}
  </section>
);

/**
 * What the last action did: its redirect says `?done=<key>`, and only the page's own fixed
 * messages are shown (a link cannot make the page say anything else).
 */
export const Done: FC<{ messages: Readonly<Record<string, string>>; done: string | undefined }> = ({
  messages,
  done,
}) => {
  const text = done === undefined ? undefined : messages[done];
  return text ? (
    <p class="notice" role="status" id="done">
      {text}
    </p>
  ) : null;
};

/** A time as the API gives it (ISO, UTC), readable without script. */
export const When: FC<{ at: string | null; never?: string }> = ({ at, never = '—' }) =>
  at ? (
    <time datetime={at}>{at.replace('T', ' ').slice(0, 16)} UTC</time>
  ) : (
    <span class="muted">{never}</span>
  );

/** A table under its heading, its columns named, scrolling sideways in a region keys can reach. */
export const Table: FC<{
  id: string;
  title: string;
  columns: readonly string[];
  filter?: string;
  children?: Child;
}> = (props) => (
  <section class="card" aria-labelledby={`${props.id}-title`}>
    <h2 id={`${props.id}-title`}>{props.title}</h2>
    <div class="scroll" tabindex={0} role="region" aria-labelledby={`${props.id}-title`}>
      <table id={props.id} data-filter={props.filter}>
        <thead>
          <tr>
            {props.columns.map((column) => (
              <th scope="col">{column}</th>
            ))}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  </section>
);

/**
 * One action on a row of a table: a small form with the row's id (`name`=`value`), its button
 * named by the action, asking first when `confirm` is given.
 */
export const RowAction: FC<{
  page: PageContext;
  action: string;
  intent: string;
  /** The form's name for assistive technology: the action and the row (`Delete laptop`). */
  label: string;
  name: string;
  value: string;
  button: string;
  confirm?: string;
  danger?: boolean;
}> = (props) => (
  <Form
    action={props.action}
    csrf={props.page.csrf}
    intent={props.intent}
    inline
    label={props.label}
    {...(props.confirm ? { confirm: props.confirm } : {})}
  >
    <input type="hidden" name={props.name} value={props.value} />
    <button type="submit" class={props.danger ? 'quiet danger' : 'quiet'}>
      {props.button}
    </button>
  </Form>
);

/** The rows of `items` on page `page` (1-based) and how many pages there are. */
export function pageOf<T>(items: readonly T[], raw: string | undefined) {
  const pages = Math.max(1, Math.ceil(items.length / PAGE_SIZE));
  const asked = Number(raw);
  const page = Number.isInteger(asked) && asked >= 1 ? Math.min(asked, pages) : 1;
  return { rows: items.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE), page, pages };
}

/** Links to the page before and after (`href(n)` is page n's address). */
export const Pager: FC<{ page: number; pages: number; href(page: number): string }> = (props) =>
  props.pages > 1 ? (
    <nav class="pager" aria-label="Pages">
      {props.page > 1 ? <a href={props.href(props.page - 1)}>Previous page</a> : null}
      <span>
        Page {props.page} of {props.pages}
      </span>
      {props.page < props.pages ? <a href={props.href(props.page + 1)}>Next page</a> : null}
    </nav>
  ) : null;

/**
 * Links through a list the API pages by cursor: back to its start when this is a later page
 * (`cursor` given), and on to the page after when the API gave `next`.
 */
export const CursorPager: FC<{
  cursor: string | undefined;
  next: string | undefined;
  href(cursor?: string): string;
  /** What the list holds, for the links' names: "events", "tokens". */
  noun: string;
}> = (props) => (
  <nav class="pager" aria-label="Pages">
    {props.cursor ? <a href={props.href()}>Newest {props.noun}</a> : null}
    {props.next ? <a href={props.href(props.next)}>Older {props.noun}</a> : null}
  </nav>
);

/** A query string of the values given (blank ones left out). */
export function queryOf(values: Record<string, string | number | undefined>): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(values))
    if (value !== undefined && value !== '') query.set(key, String(value));
  const text = query.toString();
  return text ? `?${text}` : '';
}

/**
 * A whole number as typed in a form: undefined when blank, a number when it is digits, else the
 * text itself, so the API refuses it with its own message naming the field.
 */
export function wholeNumber(raw: string | undefined): number | string | undefined {
  const text = (raw ?? '').trim();
  if (text === '') return undefined;
  return /^\d+$/.test(text) ? Number(text) : text;
}
