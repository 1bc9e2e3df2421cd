/**
 * `/console/invitations`: invitations of the tenant, newest first, with their user and state, and
 * "Revoke" for a pending one; "Create invitation" makes a user with an invitation instead of a
 * token (access picked by name) and shows the `/join` link to copy, once; an existing user can get
 * a new invitation too.
 */
import type { FC } from 'hono/jsx';
import { ApiError } from '../api-client.ts';
import { Field, Form, failedForm, type FormState } from '../forms.tsx';
import { definePage, type FormFields, type PageContext, type PageView } from '../page.ts';
import { loadCatalog } from './catalog.ts';
import {
  Done,
  Pager,
  pageOf,
  queryOf,
  SecretOnce,
  Table,
  When,
  RowAction,
  wholeNumber,
} from './parts.tsx';
import { listUsers, namedUser, type UserRecord } from './user-data.ts';
import { NEW_USER, refusedUser, userBody, UserFields } from './user-form.tsx';

interface Invitation {
  id: string;
  userId: string;
  codePrefix: string;
  expiresAt: string;
  createdAt: string;
  status: 'pending' | 'redeemed' | 'revoked' | 'expired';
}

const HOURS_HINT = "1 to 8760; blank: the hub's default (invites.expiresInHours).";
const REISSUE_FIELDS = ['user', 'hours'];

/** `expiresInHours` as typed (left out when blank). */
function hoursOf(raw: string | undefined) {
  const hours = wholeNumber(raw);
  return hours === undefined ? {} : { expiresInHours: hours };
}

async function invitationsView(
  page: PageContext,
  forms: { create?: FormState; reissue?: FormState } = {},
): Promise<PageView> {
  const [answer, users, catalog] = await Promise.all([
    page.api.get<{ invitations: Invitation[] }>('/admin/invitations'),
    listUsers(page.api),
    loadCatalog(page.api),
  ]);
  const names = new Map(users.map((user) => [user.id, user.name]));
  const shown = pageOf(answer.invitations, page.query('page'));
  return {
    title: 'Invitations',
    body: (
      <>
        <Done messages={{ revoked: 'Invitation revoked.' }} done={page.query('done')} />
        <InvitationTable page={page} invitations={shown.rows} names={names} />
        <Pager
          page={shown.page}
          pages={shown.pages}
          href={(n) => page.href(`/invitations${queryOf({ page: n })}`)}
        />
        <section class="card" aria-labelledby="create-title">
          <h2 id="create-title">Create invitation</h2>
          <p class="note">
            Makes the user now; they get their own token by opening the link in HarborClient.
          </p>
          <Form
            action={page.href('/invitations')}
            csrf={page.csrf}
            intent="create"
            state={forms.create}
          >
            <UserFields catalog={catalog} user={NEW_USER} state={forms.create} />
            <Field
              name="expiresInHours"
              label="Link expires in hours"
              hint={HOURS_HINT}
              state={forms.create}
              autocomplete="off"
            />
            <button type="submit">Create invitation</button>
          </Form>
        </section>
        <section class="card" aria-labelledby="reissue-title">
          <h2 id="reissue-title">Invite an existing user again</h2>
          <Form
            action={page.href('/invitations')}
            csrf={page.csrf}
            intent="reissue"
            state={forms.reissue}
          >
            <Field
              name="user"
              label="User"
              hint="Their name or id."
              state={forms.reissue}
              required
              autocomplete="off"
            />
            <Field
              name="hours"
              label="Expires in hours"
              hint={HOURS_HINT}
              state={forms.reissue}
              autocomplete="off"
            />
            <button type="submit">Invite again</button>
          </Form>
        </section>
      </>
    ),
    ...(forms.create || forms.reissue ? { status: 400 as const } : {}),
  };
}

const InvitationTable: FC<{
  page: PageContext;
  invitations: readonly Invitation[];
  names: ReadonlyMap<string, string>;
}> = ({ page, invitations, names }) => (
  <Table
    id="invitations"
    title="Invitations"
    filter="Filter invitations"
    columns={['User', 'Code', 'State', 'Created', 'Expires', 'Actions']}
  >
    {invitations.map((invitation) => (
      <tr data-invitation={invitation.id}>
        <td>
          {names.has(invitation.userId) ? (
            <a href={page.href(`/users/${encodeURIComponent(invitation.userId)}`)}>
              {names.get(invitation.userId)}
            </a>
          ) : (
            <span class="muted">{invitation.userId}</span>
          )}
        </td>
        <td>
          <code>{invitation.codePrefix}…</code>
        </td>
        <td class={invitation.status === 'pending' ? 'good' : undefined}>{invitation.status}</td>
        <td>
          <When at={invitation.createdAt} />
        </td>
        <td>
          <When at={invitation.expiresAt} />
        </td>
        <td>
          {invitation.status === 'pending' ? (
            <RowAction
              page={page}
              action={page.href('/invitations')}
              intent="revoke"
              label={`Revoke the invitation of ${names.get(invitation.userId) ?? invitation.userId}`}
              name="invitationId"
              value={invitation.id}
              button="Revoke"
            />
          ) : null}
        </td>
      </tr>
    ))}
  </Table>
);

/** The link of a new invitation, shown once. */
const Issued: FC<{ page: PageContext; user: UserRecord; link: string; expiresAt: string }> = (
  props,
) => (
  <>
    <SecretOnce id="link" label="The join link" value={props.link}>
      <p class="note">
        For {props.user.name}, until <When at={props.expiresAt} />. Shown only now: send it to them;
        opening it in a browser shows who it is for and opens HarborClient.
      </p>
    </SecretOnce>
    <p>
      <a href={props.page.href('/invitations')}>Back to the invitations</a>
    </p>
  </>
);

type IssuedAnswer = { user: UserRecord; link: string; invitation: Invitation };

async function post(
  page: PageContext,
  fields: FormFields,
): Promise<PageView | { redirect: string }> {
  if (fields.intent === 'revoke') {
    await page.api.send(
      'DELETE',
      `/admin/invitations/${encodeURIComponent(fields.invitationId ?? '')}`,
    );
    return { redirect: '/invitations?done=revoked' };
  }
  const issued = (made: IssuedAnswer): PageView => ({
    title: 'Invitation created',
    body: (
      <Issued page={page} user={made.user} link={made.link} expiresAt={made.invitation.expiresAt} />
    ),
    status: 200,
  });
  if (fields.intent === 'reissue') {
    try {
      const user = namedUser(await listUsers(page.api), fields.user);
      return issued(
        await page.api.send<IssuedAnswer>(
          'POST',
          `/admin/users/${encodeURIComponent(user.id)}/invitations`,
          hoursOf(fields.hours),
        ),
      );
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 400) throw error;
      // The API names the field `expiresInHours`; this form calls it `hours`.
      const state = failedForm(fields, error, REISSUE_FIELDS, { expiresInHours: 'hours' });
      return invitationsView(page, { reissue: state });
    }
  }
  const catalog = await loadCatalog(page.api);
  try {
    const body = { ...userBody(fields, catalog), ...hoursOf(fields.expiresInHours) };
    return issued(await page.api.send<IssuedAnswer>('POST', '/admin/invited-users', body));
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 400) throw error;
    return invitationsView(page, {
      create: refusedUser(fields, error, catalog, ['expiresInHours']),
    });
  }
}

export const invitationsPage = definePage({
  path: '/invitations',
  summary: 'Invitations: create one (the /join link to copy), list them, revoke a pending one',
  admin: true,
  nav: 'Invitations',
  get: (page) => invitationsView(page),
  post,
});
