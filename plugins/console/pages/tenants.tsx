/**
 * `/console/tenants`, with multitenancy on: the hub's tenants (for administrators of the default
 * tenant, who run the hub: list, "Create tenant" with its first administrator, "Delete"), and
 * "Switch tenant" for every administrator. A console session acts with one token, and a token
 * belongs to one tenant, so switching is signing in to the other tenant with a token of theirs:
 * the form posts to the sign-in, which opens the new session and only then signs this one out. A
 * tenant made here offers that at once, with its first administrator's token.
 */
import type { FC } from 'hono/jsx';
import { DEFAULT_TENANT_ID } from '../../../kernel/identity/tenants.ts';
import { ApiError } from '../api-client.ts';
import { Field, Form, failedForm, type FormState } from '../forms.tsx';
import { definePage, type FormFields, type PageContext, type PageView } from '../page.ts';
import { Done, SecretOnce, Table, When, RowAction } from './parts.tsx';

interface Tenant {
  id: string;
  name: string;
  createdAt: string;
}

const CREATE_FIELDS = ['id', 'name', 'adminName'];

/** The tenants, or null when only the default tenant's administrators may list them. */
async function tenantsOf(page: PageContext): Promise<Tenant[] | null> {
  try {
    return (await page.api.get<{ tenants: Tenant[] }>('/admin/tenants')).tenants;
  } catch (error) {
    if (error instanceof ApiError && error.status === 403) return null;
    throw error;
  }
}

/** Signing in to another tenant: its id and a token of it (the sign-in route does the rest). */
const SwitchForm: FC<{ page: PageContext }> = ({ page }) => (
  <section class="card" aria-labelledby="switch-title">
    <h2 id="switch-title">Switch tenant</h2>
    <p>
      You act in <b id="current-tenant">{page.me.tenantId}</b>. A token belongs to one tenant, so
      switching signs you in there with a token of that tenant; this session ends once that works.
    </p>
    <form method="post" action={page.href('/sign-in')} class="stack" aria-label="Switch tenant">
      <Field name="tenant" label="Tenant id" required autocomplete="off" />
      <Field name="token" label="Token" type="password" autocomplete="off" required />
      <button type="submit">Switch tenant</button>
    </form>
  </section>
);

async function tenantsView(page: PageContext, form?: FormState): Promise<PageView> {
  const tenants = await tenantsOf(page);
  return {
    title: 'Tenants',
    body: (
      <>
        <Done messages={{ deleted: 'Tenant deleted.' }} done={page.query('done')} />
        {tenants === null ? (
          <p class="notice" id="operator-note">
            Tenants are made and deleted by administrators of the default tenant.
          </p>
        ) : (
          <>
            <TenantTable page={page} tenants={tenants} />
            <section class="card" aria-labelledby="create-title">
              <h2 id="create-title">Create tenant</h2>
              <Form action={page.href('/tenants')} csrf={page.csrf} intent="create" state={form}>
                <Field
                  name="id"
                  label="Id"
                  hint="Letters, digits, underscores and hyphens; HarborClient's tenant setting."
                  state={form}
                  required
                  autocomplete="off"
                />
                <Field name="name" label="Name" hint="Its hub name." state={form} required />
                <Field
                  name="adminName"
                  label="First administrator"
                  hint="Their user name in the new tenant; blank to make nobody (then only the command line can)."
                  state={form}
                  autocomplete="off"
                />
                <button type="submit">Create tenant</button>
              </Form>
            </section>
          </>
        )}
        <SwitchForm page={page} />
      </>
    ),
    ...(form ? { status: 400 as const } : {}),
  };
}

const TenantTable: FC<{ page: PageContext; tenants: readonly Tenant[] }> = ({ page, tenants }) => (
  <Table id="tenants" title="Tenants" columns={['Id', 'Name', 'Created', 'Actions']}>
    {tenants.map((tenant) => (
      <tr data-tenant={tenant.id}>
        <td>
          <code>{tenant.id}</code>
          {tenant.id === page.me.tenantId ? <span class="muted"> (this session)</span> : null}
        </td>
        <td>{tenant.name}</td>
        <td>
          <When at={tenant.createdAt} />
        </td>
        <td>
          {tenant.id === DEFAULT_TENANT_ID ? null : (
            <RowAction
              page={page}
              action={page.href('/tenants')}
              intent="delete"
              label={`Delete ${tenant.id}`}
              name="id"
              value={tenant.id}
              button="Delete"
              confirm={`Delete the tenant ${tenant.id} and everything in it: users, tokens, collections, history? This cannot be undone.`}
              danger
            />
          )}
        </td>
      </tr>
    ))}
  </Table>
);

interface Created {
  tenant: Tenant;
  admin?: { user: { name: string }; secret: string };
}

/** A new tenant: its first administrator's token once, and signing in there with it. */
const CreatedView: FC<{ page: PageContext; made: Created }> = ({ page, made }) => (
  <>
    <p class="notice" role="status" id="done">
      Created the tenant {made.tenant.id} ({made.tenant.name}).
    </p>
    {made.admin ? (
      <>
        <SecretOnce id="secret" label={`${made.admin.user.name}'s token`} value={made.admin.secret}>
          <p class="note">
            The first administrator of {made.tenant.id}. Shown only now: keep it, or hand it to
            them.
          </p>
        </SecretOnce>
        <form
          method="post"
          action={page.href('/sign-in')}
          aria-label={`Sign in to ${made.tenant.id}`}
        >
          <input type="hidden" name="tenant" value={made.tenant.id} />
          <input type="hidden" name="token" value={made.admin.secret} />
          <button type="submit">Switch to {made.tenant.id}</button>
        </form>
      </>
    ) : null}
    <p>
      <a href={page.href('/tenants')}>Back to the tenants</a>
    </p>
  </>
);

async function post(page: PageContext, fields: FormFields) {
  if (fields.intent === 'delete') {
    await page.api.send('DELETE', `/admin/tenants/${encodeURIComponent(fields.id ?? '')}`);
    return { redirect: '/tenants?done=deleted' };
  }
  try {
    const made = await page.api.send<Created>('POST', '/admin/tenants', {
      id: fields.id ?? '',
      name: fields.name ?? '',
      adminName: fields.adminName ?? '',
    });
    return {
      title: 'Tenant created',
      body: <CreatedView page={page} made={made} />,
      status: 200 as const,
    };
  } catch (error) {
    if (!(error instanceof ApiError) || (error.status !== 400 && error.status !== 409)) throw error;
    return tenantsView(page, failedForm(fields, error, CREATE_FIELDS));
  }
}

export const tenantsPage = definePage({
  path: '/tenants',
  summary: 'Tenants, with multitenancy on: list, create, delete (default tenant), switch',
  admin: true,
  nav: 'Tenants',
  available: (hub) => hub.multitenancy.enabled,
  get: (page) => tenantsView(page),
  post,
});
