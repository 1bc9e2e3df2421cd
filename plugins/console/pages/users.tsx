/**
 * `/console/users`: the tenant's users — search by name, filter by role, fifty a page — each with
 * their role, access by name (ids that name nothing flagged), single sign-on link, LLM tokens this
 * month against the cap and stored run results; and "Create user", whose first token is shown
 * once. Reads `GET /admin/users` (one cached answer), the admin lists for names, and the usage
 * of the shown users in two requests.
 */
import type { FC } from 'hono/jsx';
import { ApiError } from '../api-client.ts';
import { Field, Form, SelectField, type FormState } from '../forms.tsx';
import { Avatar } from '../layout.tsx';
import { definePage, type PageContext, type PageView } from '../page.ts';
import { loadCatalog, type Catalog } from './catalog.ts';
import { Done, Pager, pageOf, queryOf, SecretOnce, Table } from './parts.tsx';
import { AccessLines, LlmUsage, RunUsage, SsoLink } from './user-cells.tsx';
import { listUsers, usageOf, type Usage, type UserRecord } from './user-data.ts';
import { NEW_USER, refusedUser, userBody, UserFields } from './user-form.tsx';

const ROLE_FILTER = [
  { value: '', label: 'Any role' },
  { value: 'user', label: 'Users' },
  { value: 'admin', label: 'Administrators' },
];

/** The users a search keeps: the name contains the text (any case), or the id is it. */
function search(users: readonly UserRecord[], q: string, role: string) {
  const needle = q.trim().toLowerCase();
  return users.filter(
    (user) =>
      (!needle || user.name.toLowerCase().includes(needle) || user.id === q.trim()) &&
      (!role || user.role === role),
  );
}

async function usersView(page: PageContext, form?: FormState): Promise<PageView> {
  const q = page.query('q') ?? '';
  const role = page.query('only') ?? '';
  const [users, catalog] = await Promise.all([listUsers(page.api), loadCatalog(page.api)]);
  const found = search(users, q, role);
  const shown = pageOf(found, page.query('page'));
  const usage = await usageOf(page.api, shown.rows);
  return {
    title: 'Users',
    body: (
      <>
        <Done messages={{ deleted: 'User deleted.' }} done={page.query('done')} />
        <form method="get" action={page.href('/users')} class="filters" aria-label="Find users">
          <Field name="q" label="Name or id" value={q} />
          <SelectField name="only" label="Role" value={role} options={ROLE_FILTER} />
          <button type="submit">Search</button>
        </form>
        <p class="note" id="count">
          {found.length === users.length
            ? `${users.length} users.`
            : `${found.length} of ${users.length} users match.`}
        </p>
        <UserTable users={shown.rows} catalog={catalog} usage={usage} href={page.href} />
        <Pager
          page={shown.page}
          pages={shown.pages}
          href={(n) => page.href(`/users${queryOf({ q, only: role, page: n })}`)}
        />
        <section class="card" aria-labelledby="create-title">
          <h2 id="create-title">Create user</h2>
          <Form action={page.href('/users')} csrf={page.csrf} intent="create" state={form}>
            <UserFields catalog={catalog} user={NEW_USER} state={form} />
            <button type="submit">Create user</button>
          </Form>
        </section>
      </>
    ),
    ...(form ? { status: 400 as const } : {}),
  };
}

const UserTable: FC<{
  users: readonly UserRecord[];
  catalog: Catalog;
  usage: Usage;
  href(path: string): string;
}> = ({ users, catalog, usage, href }) => (
  <Table
    id="users"
    title="Users"
    columns={[
      'Name',
      'Role',
      'Access',
      'Single sign-on',
      `LLM tokens ${usage.period}`,
      'Run results',
    ]}
  >
    {users.map((user) => (
      <tr data-user={user.id}>
        <td>
          <Avatar initials={user.avatarInitials} color={user.avatarColor} />{' '}
          <a href={href(`/users/${encodeURIComponent(user.id)}`)}>{user.name}</a>
        </td>
        <td>{user.role}</td>
        <td>
          <AccessLines user={user} catalog={catalog} />
        </td>
        <td>
          <SsoLink user={user} />
        </td>
        <td>
          <LlmUsage user={user} usage={usage} />
        </td>
        <td>
          <RunUsage user={user} usage={usage} />
        </td>
      </tr>
    ))}
  </Table>
);

/** After "Create user": the new user's first token, shown this once. */
const Created: FC<{ user: UserRecord; secret: string; href(path: string): string }> = (props) => (
  <>
    <p class="notice" role="status" id="done">
      Created {props.user.name}.
    </p>
    <SecretOnce id="secret" label="Their token" value={props.secret}>
      <p class="note">
        Shown only now: hand it to {props.user.name}, who pastes it into HarborClient or the
        console.
      </p>
    </SecretOnce>
    <p>
      <a href={props.href(`/users/${encodeURIComponent(props.user.id)}`)}>
        Open {props.user.name}'s page
      </a>
    </p>
  </>
);

export const usersPage = definePage({
  path: '/users',
  summary: 'The users: search, role, access by name, sign-on link and usage; create a user',
  admin: true,
  nav: 'Users',
  get: (page) => usersView(page),
  async post(page, fields) {
    const catalog = await loadCatalog(page.api);
    try {
      const made = await page.api.send<{ user: UserRecord; secret: string }>(
        'POST',
        '/admin/users',
        userBody(fields, catalog),
      );
      return {
        title: 'User created',
        body: <Created user={made.user} secret={made.secret} href={page.href} />,
        status: 200,
      };
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 400) throw error;
      return usersView(page, refusedUser(fields, error, catalog));
    }
  },
});
