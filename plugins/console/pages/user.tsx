/**
 * `/console/users/:id`: one user — role, access by name with warnings for ids that name nothing,
 * single sign-on link (with "Unlink"), LLM tokens this month against the cap, stored run results,
 * their tokens — and the forms to edit them (access picked by name, the wildcard as a choice) and
 * to delete them after a confirmation.
 */
import type { FC } from 'hono/jsx';
import { ACCESS_FIELDS } from '../../../kernel/identity/access.ts';
import type { TokenRecord } from '../../../kernel/identity/tokens.ts';
import { ApiError } from '../api-client.ts';
import { Form, type FormState } from '../forms.tsx';
import { Avatar } from '../layout.tsx';
import { definePage, type FormFields, type PageContext, type PageView } from '../page.ts';
import { loadCatalog, type Catalog } from './catalog.ts';
import { Done, queryOf, When } from './parts.tsx';
import { AccessLines, LlmUsage, RunUsage, SsoLink } from './user-cells.tsx';
import { listUsers, usageOf, type Usage, type UserRecord } from './user-data.ts';
import { refusedUser, userBody, UserFields, type UserSettings } from './user-form.tsx';

const DONE: Record<string, string> = {
  saved: 'Saved.',
  unlinked: 'Unlinked from single sign-on.',
};

/** The user of the page, or the API's 404. */
async function userOf(page: PageContext): Promise<UserRecord> {
  const id = page.param('id');
  const user = (await listUsers(page.api)).find((candidate) => candidate.id === id);
  if (!user) throw new ApiError(404, 'User not found', 'not_found');
  return user;
}

const settingsOf = (user: UserRecord): UserSettings => ({
  name: user.name,
  role: user.role,
  llmAccess: user.llmAccess,
  llmMonthlyTokenLimit: user.llmMonthlyTokenLimit,
  lists: Object.fromEntries(ACCESS_FIELDS.map((field) => [field, user[field]])),
});

async function userView(
  page: PageContext,
  form?: FormState,
  status: 400 | 403 = 400,
): Promise<PageView> {
  const user = await userOf(page);
  const [catalog, usage, tokens] = await Promise.all([
    loadCatalog(page.api),
    usageOf(page.api, [user]),
    page.api.get<{ tokens: TokenRecord[] }>(`/admin/tokens${queryOf({ userId: user.id })}`),
  ]);
  return {
    title: user.name,
    body: (
      <>
        <Done messages={DONE} done={page.query('done')} />
        <UserFacts page={page} user={user} catalog={catalog} usage={usage} tokens={tokens.tokens} />
        <section class="card" aria-labelledby="edit-title">
          <h2 id="edit-title">Edit {user.name}</h2>
          <Form
            action={page.href(`/users/${encodeURIComponent(user.id)}`)}
            csrf={page.csrf}
            intent="update"
            state={form}
          >
            <UserFields catalog={catalog} user={settingsOf(user)} state={form} />
            <button type="submit">Save user</button>
          </Form>
        </section>
        <section class="card" aria-labelledby="delete-title">
          <h2 id="delete-title">Delete {user.name}</h2>
          <p>Their tokens, sessions and avatar go with the account; what they made stays.</p>
          <Form
            action={page.href(`/users/${encodeURIComponent(user.id)}`)}
            csrf={page.csrf}
            intent="delete"
            confirm={`Delete ${user.name}? This cannot be undone.`}
            label={`Delete ${user.name}`}
          >
            <button type="submit" class="danger">
              Delete user
            </button>
          </Form>
        </section>
      </>
    ),
    ...(form ? { status } : {}),
  };
}

const UserFacts: FC<{
  page: PageContext;
  user: UserRecord;
  catalog: Catalog;
  usage: Usage;
  tokens: readonly TokenRecord[];
}> = ({ page, user, catalog, usage, tokens }) => {
  const active = tokens.filter((token) => token.revokedAt === null).length;
  return (
    <section class="card" aria-labelledby="facts-title">
      <h2 id="facts-title">
        <Avatar initials={user.avatarInitials} color={user.avatarColor} /> {user.name}
      </h2>
      {user.warnings.length > 0 ? (
        <ul class="notice bad" id="warnings">
          {user.warnings.map((warning) => (
            <li>⚠ {warning}</li>
          ))}
        </ul>
      ) : null}
      <dl id="facts">
        <dt>Role</dt>
        <dd>{user.role}</dd>
        <dt>Id</dt>
        <dd>
          <code>{user.id}</code>
        </dd>
        <dt>Created</dt>
        <dd>
          <When at={user.createdAt} />
        </dd>
        <dt>Access</dt>
        <dd>
          <AccessLines user={user} catalog={catalog} />
        </dd>
        <dt>Single sign-on</dt>
        <dd>
          <SsoLink user={user} />
          {user.identityProvider ? (
            <Form
              action={page.href(`/users/${encodeURIComponent(user.id)}`)}
              csrf={page.csrf}
              intent="unlink"
              confirm={`Unlink ${user.name}? Their next sign-in makes a new account.`}
              inline
            >
              <button type="submit" class="quiet">
                Unlink
              </button>
            </Form>
          ) : null}
        </dd>
        <dt>LLM tokens {usage.period}</dt>
        <dd id="llm-usage">
          <LlmUsage user={user} usage={usage} />
        </dd>
        <dt>Run results</dt>
        <dd id="run-usage">
          <RunUsage user={user} usage={usage} />
        </dd>
        <dt>Tokens</dt>
        <dd>
          {active} active of {tokens.length} ·{' '}
          <a href={page.href(`/tokens${queryOf({ user: user.id })}`)}>Tokens of {user.name}</a>
        </dd>
      </dl>
    </section>
  );
};

/** Runs the form's action; the user's page again (or the list) afterwards. */
async function act(page: PageContext, fields: FormFields) {
  const id = page.param('id');
  const path = `/admin/users/${encodeURIComponent(id)}`;
  const here = `/users/${encodeURIComponent(id)}`;
  switch (fields.intent) {
    case 'delete':
      await page.api.send('DELETE', path);
      return { redirect: '/users?done=deleted' };
    case 'unlink':
      await page.api.send('DELETE', `/admin/sso/links/${encodeURIComponent(id)}`);
      return { redirect: `${here}?done=unlinked` };
    default: {
      const catalog = await loadCatalog(page.api);
      try {
        await page.api.send('PUT', path, userBody(fields, catalog));
        return { redirect: `${here}?done=saved` };
      } catch (error) {
        // 403: a change the API refuses for this account (your own role), with the form as typed.
        if (!(error instanceof ApiError) || (error.status !== 400 && error.status !== 403))
          throw error;
        return userView(page, refusedUser(fields, error, catalog), error.status);
      }
    }
  }
}

export const userPage = definePage({
  path: '/users/:id',
  summary: "A user's page: access by name, sign-on link, usage and tokens; edit or delete them",
  admin: true,
  get: (page) => userView(page),
  post: act,
});
