/**
 * `/console/workspace`: the tenant's collections, environments, snippets, live servers and live
 * pages — one kind at a time (`?kind=`), fifty a page — with "Lock" and "Unlock" (a locked one
 * cannot be deleted through the data API, by anyone) and "Delete" after a confirmation (the
 * admin API deletes whatever the lock and creator). The kinds are the kernel's entity access
 * lists, in their order.
 */
import type { FC } from 'hono/jsx';
import { ENTITY_ACCESS_FIELDS, type EntityAccessField } from '../../../kernel/identity/access.ts';
import { definePage, type PageContext, type PageView } from '../page.ts';
import { adminPathOf, listKeyOf, pluralTitle } from './catalog.ts';
import { Done, Pager, pageOf, queryOf, RowAction, Table } from './parts.tsx';

interface Row {
  id: string;
  name: string;
  deletionLocked: boolean;
}

const DONE = { locked: 'Locked.', unlocked: 'Unlocked.', deleted: 'Deleted.' };

/** The kind a query names (by its list key), else the first. */
const kindOf = (raw: string | undefined): EntityAccessField =>
  ENTITY_ACCESS_FIELDS.find((field) => listKeyOf(field) === raw) ?? ENTITY_ACCESS_FIELDS[0];

async function workspaceView(page: PageContext): Promise<PageView> {
  const field = kindOf(page.query('kind'));
  const key = listKeyOf(field);
  const answer = await page.api.get<Record<string, Row[]>>(adminPathOf(field));
  const shown = pageOf(answer[key] ?? [], page.query('page'));
  const here = (extra: Record<string, string | number> = {}) =>
    page.href(`/workspace${queryOf({ kind: key, ...extra })}`);
  return {
    title: 'Workspace',
    body: (
      <>
        <Done messages={DONE} done={page.query('done')} />
        <nav aria-label="Kinds" class="tabs">
          <ul>
            {ENTITY_ACCESS_FIELDS.map((other) => (
              <li>
                <a
                  href={page.href(`/workspace${queryOf({ kind: listKeyOf(other) })}`)}
                  aria-current={other === field ? 'page' : undefined}
                >
                  {pluralTitle(other)}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <KindTable
          page={page}
          field={field}
          rows={shown.rows}
          action={here({ page: shown.page })}
        />
        <Pager page={shown.page} pages={shown.pages} href={(n) => here({ page: n })} />
      </>
    ),
  };
}

const KindTable: FC<{
  page: PageContext;
  field: EntityAccessField;
  rows: readonly Row[];
  action: string;
}> = ({ page, field, rows, action }) => (
  <Table
    id="entities"
    title={pluralTitle(field)}
    filter="Filter by name"
    columns={['Name', 'Deletion lock', 'Actions']}
  >
    {rows.map((row) => (
      <tr data-entity={row.id}>
        <td>
          {row.name} <span class="muted note">({row.id})</span>
        </td>
        <td class={row.deletionLocked ? 'bad' : undefined}>
          {row.deletionLocked ? 'locked' : 'unlocked'}
        </td>
        <td class="actions">
          <RowAction
            page={page}
            action={action}
            intent={row.deletionLocked ? 'unlock' : 'lock'}
            label={`${row.deletionLocked ? 'Unlock' : 'Lock'} ${row.name}`}
            name="id"
            value={row.id}
            button={row.deletionLocked ? 'Unlock' : 'Lock'}
          />
          <RowAction
            page={page}
            action={action}
            intent="delete"
            label={`Delete ${row.name}`}
            name="id"
            value={row.id}
            button="Delete"
            confirm={`Delete “${row.name}” and everything in it, whatever its lock?`}
            danger
          />
        </td>
      </tr>
    ))}
  </Table>
);

export const workspacePage = definePage({
  path: '/workspace',
  summary:
    'Collections, environments, snippets, live servers and live pages (`?kind=`): lock, unlock, delete',
  admin: true,
  nav: 'Workspace',
  get: workspaceView,
  async post(page, fields) {
    const field = kindOf(page.query('kind'));
    const path = `${adminPathOf(field)}/${encodeURIComponent(fields.id ?? '')}`;
    const back = (done: keyof typeof DONE) =>
      `/workspace${queryOf({ kind: listKeyOf(field), page: page.query('page'), done })}`;
    if (fields.intent === 'delete') {
      await page.api.send('DELETE', path);
      return { redirect: back('deleted') };
    }
    const locked = fields.intent === 'lock';
    await page.api.send('PUT', path, { deletionLocked: locked });
    return { redirect: back(locked ? 'locked' : 'unlocked') };
  },
});
