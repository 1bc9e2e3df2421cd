/**
 * `/console/tokens`: every API token of the tenant, or one user's (`?user=<id>`), newest first,
 * fifty a page — owner, prefix, last use, expiry and state — with "Revoke" (kept, refused from
 * then on) and "Delete"; and "Create token" for a user, whose secret is shown once with a copy
 * button. `expiresInDays` may give it a lifetime; left blank, the hub's default applies.
 */
import type { FC } from 'hono/jsx';
import type { TokenRecord } from '../../../kernel/identity/tokens.ts';
import { ApiError } from '../api-client.ts';
import { Field, Form, failedForm, type FormState } from '../forms.tsx';
import { definePage, type FormFields, type PageContext, type PageView } from '../page.ts';
import {
  Done,
  CursorPager,
  PAGE_SIZE,
  queryOf,
  SecretOnce,
  Table,
  When,
  RowAction,
  wholeNumber,
} from './parts.tsx';
import { listUsers, namedUser, type UserRecord } from './user-data.ts';

const DONE: Record<string, string> = { revoked: 'Token revoked.', deleted: 'Token deleted.' };
const CREATE_FIELDS = ['user', 'name', 'expiresInDays'];

const stateOf = (token: TokenRecord, now: number) =>
  token.revokedAt !== null
    ? 'revoked'
    : token.expiresAt !== null && Date.parse(token.expiresAt) <= now
      ? 'expired'
      : 'active';

async function tokensView(page: PageContext, form?: FormState): Promise<PageView> {
  const userId = page.query('user');
  const cursor = page.query('cursor');
  const [answer, users] = await Promise.all([
    page.api.get<{ tokens: TokenRecord[]; nextCursor?: string }>(
      `/admin/tokens${queryOf({ userId, limit: PAGE_SIZE, cursor })}`,
    ),
    listUsers(page.api),
  ]);
  const owners = new Map(users.map((user) => [user.id, user]));
  const owner = userId === undefined ? undefined : owners.get(userId);
  return {
    title: owner ? `Tokens of ${owner.name}` : 'Tokens',
    body: (
      <>
        <Done messages={DONE} done={page.query('done')} />
        {owner ? (
          <p>
            <a href={page.href(`/users/${encodeURIComponent(owner.id)}`)}>{owner.name}'s page</a> ·{' '}
            <a href={page.href('/tokens')}>Every token</a>
          </p>
        ) : null}
        <TokenTable page={page} tokens={answer.tokens} owners={owners} />
        <CursorPager
          cursor={cursor}
          next={answer.nextCursor}
          href={(at) => page.href(`/tokens${queryOf({ user: userId, cursor: at })}`)}
          noun="tokens"
        />
        <section class="card" aria-labelledby="create-title">
          <h2 id="create-title">Create token</h2>
          <Form
            action={page.href(`/tokens${queryOf({ user: userId })}`)}
            csrf={page.csrf}
            intent="create"
            state={form}
          >
            {owner ? (
              <input type="hidden" name="user" value={owner.id} />
            ) : (
              <Field
                name="user"
                label="User"
                hint="Their name or id."
                state={form}
                required
                autocomplete="off"
              />
            )}
            <Field
              name="name"
              label="Token name"
              hint="Where it is used, say “laptop”."
              state={form}
              required
            />
            <Field
              name="expiresInDays"
              label="Expires in days"
              hint="1 to 3650; blank: the hub's default (never, or the single sign-on lifetime for a linked user)."
              state={form}
              autocomplete="off"
            />
            <button type="submit">Create token</button>
          </Form>
        </section>
      </>
    ),
    ...(form ? { status: 400 as const } : {}),
  };
}

const TokenTable: FC<{
  page: PageContext;
  tokens: readonly TokenRecord[];
  owners: ReadonlyMap<string, UserRecord>;
}> = ({ page, tokens, owners }) => {
  const now = Date.now();
  const action = page.href(`/tokens${queryOf({ user: page.query('user') })}`);
  return (
    <Table
      id="tokens"
      title="Tokens"
      filter="Filter tokens"
      columns={['Name', 'Owner', 'Prefix', 'Created', 'Last used', 'Expires', 'State', 'Actions']}
    >
      {tokens.map((token) => {
        const owner = token.userId === null ? undefined : owners.get(token.userId);
        const state = stateOf(token, now);
        return (
          <tr data-token={token.id}>
            <td>{token.name}</td>
            <td>
              {owner ? (
                <a href={page.href(`/users/${encodeURIComponent(owner.id)}`)}>{owner.name}</a>
              ) : (
                <span class="muted">{token.userId ?? '—'}</span>
              )}
            </td>
            <td>
              <code>{token.tokenPrefix}…</code>
            </td>
            <td>
              <When at={token.createdAt} />
            </td>
            <td>
              <When at={token.lastUsedAt} never="never" />
            </td>
            <td>
              <When at={token.expiresAt} never="never" />
            </td>
            <td class={state === 'active' ? 'good' : 'bad'}>{state}</td>
            <td class="actions">
              {state === 'active' ? (
                <RowAction
                  page={page}
                  action={action}
                  intent="revoke"
                  label={`Revoke ${token.name}`}
                  name="tokenId"
                  value={token.id}
                  button="Revoke"
                />
              ) : null}
              <RowAction
                page={page}
                action={action}
                intent="delete"
                label={`Delete ${token.name}`}
                name="tokenId"
                value={token.id}
                button="Delete"
                confirm={`Delete the token “${token.name}”? It stops working and leaves the list.`}
                danger
              />
            </td>
          </tr>
        );
      })}
    </Table>
  );
};

async function create(page: PageContext, fields: FormFields): Promise<PageView> {
  const days = wholeNumber(fields.expiresInDays);
  const body = { name: fields.name ?? '', ...(days === undefined ? {} : { expiresInDays: days }) };
  try {
    const user = namedUser(await listUsers(page.api), fields.user);
    const made = await page.api.send<{ token: TokenRecord; secret: string }>(
      'POST',
      `/admin/users/${encodeURIComponent(user.id)}/tokens`,
      body,
    );
    return {
      title: 'Token created',
      body: (
        <>
          <SecretOnce id="secret" label="The token" value={made.secret}>
            <p class="note">
              “{made.token.name}” for {user.name}
              {made.token.expiresAt ? `, until ${made.token.expiresAt.slice(0, 10)}` : ''}. Shown
              only now: copy it before you leave this page.
            </p>
          </SecretOnce>
          <p>
            <a href={page.href(`/tokens${queryOf({ user: user.id })}`)}>Tokens of {user.name}</a>
          </p>
        </>
      ),
      status: 200,
    };
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 400) throw error;
    return tokensView(page, failedForm(fields, error, CREATE_FIELDS));
  }
}

export const tokensPage = definePage({
  path: '/tokens',
  summary: "API tokens, every user's or one user's (`?user=`): create, revoke, delete",
  admin: true,
  nav: 'Tokens',
  get: (page) => tokensView(page),
  async post(page, fields) {
    if (fields.intent === 'create') return create(page, fields);
    const id = encodeURIComponent(fields.tokenId ?? '');
    const back = (done: string) => `/tokens${queryOf({ user: page.query('user'), done })}`;
    if (fields.intent === 'revoke') {
      await page.api.send('POST', `/admin/tokens/${id}/revoke`);
      return { redirect: back('revoked') };
    }
    await page.api.send('DELETE', `/admin/tokens/${id}`);
    return { redirect: back('deleted') };
  },
});
